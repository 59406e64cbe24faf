import "server-only";
import type { Context } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { NodeSDK } from "@opentelemetry/sdk-node";
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { PrismaInstrumentation } from "@prisma/instrumentation";
import { onShutdown } from "@/server/lifecycle";
import { log } from "@/server/log";
import { markTracingOn } from "./spans";

// Tracing, started from the instrumentation hook when an OTLP endpoint is configured, before any
// module that talks to the database or Redis loads. The OpenTelemetry SDK and its exporters read the
// standard variables themselves (endpoint, headers, sampler, resource attributes, batching); svc
// picks the exporter of OTEL_EXPORTER_OTLP_PROTOCOL, names the service `svc` when nothing else does,
// and sends traces only: metrics are scraped from /metrics and logs are JSON lines.
// See docs/decisions/060-tracing.md and docs/operating.md "Tracing".

const PROTOCOLS = ["http/protobuf", "http/json"] as const;

/**
 * Sends every span but Next.js's own and those under them: a page's spans carry its URL, whose path
 * or query may hold a token (an invitation's, a sign-in's code). svc's server spans name requests by
 * their route template instead, and start from the caller's `traceparent`, not from Next.js's span.
 */
class WithoutNextSpans implements SpanProcessor {
  private readonly left = new Set<string>();

  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parent: Context): void {
    const parentId = span.parentSpanContext?.spanId;
    if (span.instrumentationScope.name === "next.js" || (parentId !== undefined && this.left.has(parentId)))
      this.left.add(span.spanContext().spanId);
    else this.next.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    if (!this.left.delete(span.spanContext().spanId)) this.next.onEnd(span);
  }

  forceFlush = () => this.next.forceFlush();
  shutdown = () => this.next.shutdown();
}

function exporterOf(protocol: string): SpanExporter {
  return protocol === "http/json" ? new JsonExporter() : new ProtobufExporter();
}

export function startTracing(environment: NodeJS.ProcessEnv = process.env): void {
  const protocol =
    environment.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || environment.OTEL_EXPORTER_OTLP_PROTOCOL || "http/protobuf";
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    log.error("tracing is off: the OTLP protocol is not one svc sends", { protocol, supported: PROTOCOLS });
    return;
  }
  const named =
    environment.OTEL_SERVICE_NAME || /(^|,)\s*service\.name\s*=/.test(environment.OTEL_RESOURCE_ATTRIBUTES ?? "");
  environment.OTEL_METRICS_EXPORTER ??= "none";
  environment.OTEL_LOGS_EXPORTER ??= "none";
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: "svc" }),
    spanProcessors: [new WithoutNextSpans(new BatchSpanProcessor(exporterOf(protocol)))],
    instrumentations: [
      new PrismaInstrumentation(),
      // A command's name only: its arguments hold the rate limits' keys and the values counted.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
  markTracingOn();
  // Among the last hooks, so the spans of the shutdown's own work are sent too.
  onShutdown("close", () => sdk.shutdown());
}
