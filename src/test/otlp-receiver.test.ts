import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { receivedSpans } from "./otlp-receiver";

// The test receiver reads what OpenTelemetry's own exporters write: spans serialized by the SDK's
// serializers, in protobuf and in JSON, come out the same, with every field the app's tests read.

function finishedSpans() {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("scope");
  const parent = tracer.startSpan("parent", { kind: SpanKind.SERVER });
  const linked = tracer.startSpan("linked");
  const child = tracer.startSpan(
    "child",
    {
      kind: SpanKind.CLIENT,
      attributes: { text: "a", count: 3, flag: true, ratio: 1.5, list: ["x", "y"] },
      links: [{ context: linked.spanContext() }],
    },
    trace.setSpan(context.active(), parent),
  );
  child.setStatus({ code: SpanStatusCode.ERROR });
  for (const span of [child, linked, parent]) span.end();
  return { spans: exporter.getFinishedSpans(), parent, child, linked };
}

describe("the OTLP test receiver", () => {
  const { spans, parent, child, linked } = finishedSpans();
  const fromProtobuf = receivedSpans(
    Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!),
    "application/x-protobuf",
  );
  const fromJson = receivedSpans(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!), "application/json");

  it("decodes protobuf as it decodes JSON", () => {
    expect(fromProtobuf).toEqual(fromJson);
  });

  it("keeps names, ids, parentage, kinds, attributes, links and status", () => {
    const received = fromProtobuf.find((span) => span.name === "child")!;
    expect(received).toMatchObject({
      traceId: child.spanContext().traceId,
      spanId: child.spanContext().spanId,
      parentSpanId: parent.spanContext().spanId,
      kind: 3,
      attributes: { text: "a", count: 3, flag: true, ratio: 1.5, list: ["x", "y"] },
      links: [{ traceId: linked.spanContext().traceId, spanId: linked.spanContext().spanId }],
      status: 2,
      scope: "scope",
    });
    expect(received.resource["telemetry.sdk.language"]).toBe("nodejs");
    expect(fromProtobuf.find((span) => span.name === "parent")).toMatchObject({ parentSpanId: "", kind: 2, status: 0 });
  });
});
