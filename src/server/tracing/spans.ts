import "server-only";
import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from "@opentelemetry/api";
import { processState } from "@/server/process-state";

// The app's spans, through OpenTelemetry's API. With tracing off (tracing/start.ts never ran) every
// helper here calls its work straight away and makes nothing: the key check stays as fast as without
// tracing. What a span may carry: route templates, operation ids, request ids, key prefixes, ids of
// the app's records and status codes; never a raw key, a token, a secret or a body.
// See docs/decisions/060-tracing.md.

const state = () => processState("tracing", () => ({ on: false }));

/** Whether this process exports spans (set once, by tracing/start.ts). */
const tracingOn = (): boolean => state().on;

export const markTracingOn = (): void => {
  state().on = true;
};

/** Whether the environment asks for traces: an OTLP endpoint, and the SDK not switched off. */
export function tracingWanted(environment: NodeJS.ProcessEnv): boolean {
  const endpoint = environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || environment.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && environment.OTEL_SDK_DISABLED !== "true" && environment.OTEL_TRACES_EXPORTER !== "none";
}

const tracer = () => trace.getTracer("svc");

/** Ends `span` once `result` settles, marking it failed when it threw. */
function endWhenDone<T>(span: Span, result: () => T): T {
  const fail = (error: unknown) => {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : "error" });
    span.end();
    throw error;
  };
  let value: T;
  try {
    value = result();
  } catch (error) {
    return fail(error);
  }
  if (value instanceof Promise)
    return value.then((settled: unknown) => {
      span.end();
      return settled;
    }, fail) as T;
  span.end();
  return value;
}

/** Runs `work` inside a span named `name` (a child of the current one), ended when work is done. */
export function inSpan<T>(name: string, attributes: Attributes, work: (span?: Span) => T, kind = SpanKind.INTERNAL): T {
  if (!tracingOn()) return work();
  return tracer().startActiveSpan(name, { kind, attributes }, (span) => endWhenDone(span, () => work(span)));
}

const headersGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** The operations a server span served: its door's calls add theirs (a tRPC batch serves several). */
const SERVED = createContextKey("svc.served-operations");

/** A server span's name and first attributes, asked for only when tracing is on. */
export type ServerSpanOf = () => { name: string; attributes: Attributes };

/**
 * Runs a request's `work` in a server span that continues the caller's `traceparent` (when sent),
 * whatever span Next.js has open: a request's trace is the caller's and svc's alone.
 */
export async function inServerSpan(
  headers: Headers,
  describe: ServerSpanOf,
  work: () => Promise<Response>,
): Promise<Response> {
  if (!tracingOn()) return work();
  const { name, attributes } = describe();
  const served: string[] = [];
  const parent = propagation.extract(ROOT_CONTEXT, headers, headersGetter).setValue(SERVED, served);
  const span = tracer().startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
  try {
    const response = await context.with(trace.setSpan(parent, span), work);
    span.setAttribute("http.response.status_code", response.status);
    if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    return response;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    if (served.length > 0) span.setAttribute("svc.operation", served.join(","));
    span.end();
  }
}

/** Notes on the current server span that it served `operationId`. */
export function noteOperation(operationId: string): void {
  if (!tracingOn()) return;
  (context.active().getValue(SERVED) as string[] | undefined)?.push(operationId);
}

/** Sets `attributes` on the current span, if any. */
export function annotate(attributes: Attributes): void {
  if (!tracingOn()) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** The current span's `traceparent` (W3C Trace Context), to carry into a job or an outgoing request. */
export function currentTraceparent(): string | undefined {
  if (!tracingOn()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

const contextOf = (traceparent: string): Context => propagation.extract(ROOT_CONTEXT, { traceparent });

/**
 * Runs a job's `work` as a trace of its own (a consumer span at its root), linked to the span that
 * queued it when the job's data kept its `traceparent` (currentTraceparent() at the queueing).
 */
export function inJobSpan<T>(queue: string, data: object, work: () => Promise<T>): Promise<T> {
  if (!tracingOn()) return work();
  const { traceparent } = data as { traceparent?: unknown };
  const queuedBy = typeof traceparent === "string" ? trace.getSpanContext(contextOf(traceparent)) : undefined;
  return tracer().startActiveSpan(
    `process ${queue}`,
    {
      kind: SpanKind.CONSUMER,
      root: true,
      attributes: {
        "messaging.system": "pg-boss",
        "messaging.operation.type": "process",
        "messaging.destination.name": queue,
      },
      links: queuedBy ? [{ context: queuedBy }] : [],
    },
    (span) => endWhenDone(span, work),
  );
}

/** The current span's ids for a log line: `trace_id` and `span_id`, or nothing outside a span. */
export function traceFields(): { trace_id?: string; span_id?: string } {
  if (!tracingOn()) return {};
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}
