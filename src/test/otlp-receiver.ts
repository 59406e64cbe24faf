import http from "node:http";
import protobuf from "protobufjs";
import { listenOnLoopback } from "./loopback-server";

// A real OTLP/HTTP trace receiver on 127.0.0.1, as a collector is one: it takes POST /v1/traces in
// protobuf (application/x-protobuf) or JSON (application/json), keeps every span as one plain shape,
// and answers an empty ExportTraceServiceResponse. Its decoding is held to OpenTelemetry's own
// serializers by otlp-receiver.test.ts. The protobuf messages below are the OTLP trace request's
// (opentelemetry/proto/collector/trace/v1), with the fields a span of this app can carry.

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" at a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  /** OTLP's numbering: 0 unset, 1 ok, 2 error. */
  status: number;
  scope: string;
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests received, in order. */
  contentTypes: string[];
  /** The raw bodies received, to search for what must never be there. */
  raw(): string;
  /** Waits until a span satisfying `where` has arrived (exports are batched), then returns it. */
  waitFor(where: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

const OTLP = protobuf.Root.fromJSON({
  nested: {
    ExportTraceServiceRequest: { fields: { resourceSpans: { rule: "repeated", type: "ResourceSpans", id: 1 } } },
    ResourceSpans: {
      fields: { resource: { type: "Resource", id: 1 }, scopeSpans: { rule: "repeated", type: "ScopeSpans", id: 2 } },
    },
    Resource: { fields: { attributes: { rule: "repeated", type: "KeyValue", id: 1 } } },
    ScopeSpans: {
      fields: { scope: { type: "InstrumentationScope", id: 1 }, spans: { rule: "repeated", type: "Span", id: 2 } },
    },
    InstrumentationScope: { fields: { name: { type: "string", id: 1 }, version: { type: "string", id: 2 } } },
    Span: {
      fields: {
        traceId: { type: "bytes", id: 1 },
        spanId: { type: "bytes", id: 2 },
        parentSpanId: { type: "bytes", id: 4 },
        name: { type: "string", id: 5 },
        kind: { type: "int32", id: 6 },
        attributes: { rule: "repeated", type: "KeyValue", id: 9 },
        links: { rule: "repeated", type: "Link", id: 13 },
        status: { type: "Status", id: 15 },
      },
    },
    Link: { fields: { traceId: { type: "bytes", id: 1 }, spanId: { type: "bytes", id: 2 } } },
    Status: { fields: { message: { type: "string", id: 2 }, code: { type: "int32", id: 3 } } },
    KeyValue: { fields: { key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } } },
    AnyValue: {
      oneofs: {
        value: { oneof: ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue"] },
      },
      fields: {
        stringValue: { type: "string", id: 1 },
        boolValue: { type: "bool", id: 2 },
        intValue: { type: "int64", id: 3 },
        doubleValue: { type: "double", id: 4 },
        arrayValue: { type: "ArrayValue", id: 5 },
        kvlistValue: { type: "KeyValueList", id: 6 },
      },
    },
    ArrayValue: { fields: { values: { rule: "repeated", type: "AnyValue", id: 1 } } },
    KeyValueList: { fields: { values: { rule: "repeated", type: "KeyValue", id: 1 } } },
  },
}).lookupType("ExportTraceServiceRequest");

// The request in OTLP/JSON's form (ids in hex, 64-bit numbers as numbers), which both encodings become.
interface JsonValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonValue[] };
  kvlistValue?: { values?: JsonKeyValue[] };
}
interface JsonKeyValue {
  key: string;
  value?: JsonValue;
}
interface JsonRequest {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: JsonKeyValue[];
        links?: { traceId: string; spanId: string }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function valueOf(value: JsonValue | undefined): unknown {
  if (!value) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

const attributesOf = (list: JsonKeyValue[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/** The spans of an export request in OTLP/JSON form. */
function spansOf(request: JsonRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        status: span.status?.code ?? 0,
        scope: scopeSpans.scope?.name ?? "",
        resource,
      })),
    );
  });
}

/** Decodes an export request body of either encoding. */
function decodeExport(body: Buffer, contentType: string): ReceivedSpan[] {
  if (contentType.startsWith("application/json")) return spansOf(JSON.parse(body.toString("utf8")) as JsonRequest);
  const message = OTLP.decode(body);
  return spansOf(
    OTLP.toObject(message, { bytes: String, longs: Number, defaults: false, oneofs: false }) as JsonRequest,
  );
}

/** protobufjs writes bytes in base64 (bytes: String); OTLP/JSON writes ids in hex. */
function hexIds(spans: ReceivedSpan[], contentType: string): ReceivedSpan[] {
  if (contentType.startsWith("application/json")) return spans;
  const hex = (id: string) => Buffer.from(id, "base64").toString("hex");
  return spans.map((span) => ({
    ...span,
    traceId: hex(span.traceId),
    spanId: hex(span.spanId),
    parentSpanId: hex(span.parentSpanId),
    links: span.links.map((link) => ({ traceId: hex(link.traceId), spanId: hex(link.spanId) })),
  }));
}

/** The spans of an export request body, ids in hex whatever the encoding. */
export const receivedSpans = (body: Buffer, contentType: string): ReceivedSpan[] =>
  hexIds(decodeExport(body, contentType), contentType);

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const bodies: Buffer[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const contentType = request.headers["content-type"] ?? "";
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      bodies.push(body);
      contentTypes.push(contentType);
      try {
        spans.push(...receivedSpans(body, contentType));
      } catch {
        response.writeHead(400).end();
        return;
      }
      if (contentType.startsWith("application/json"))
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      else response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    url,
    spans,
    contentTypes,
    raw: () => bodies.map((body) => body.toString("latin1")).join("\n"),
    async waitFor(where, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = spans.find(where);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such span among ${spans.map((s) => s.name).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close,
  };
}
