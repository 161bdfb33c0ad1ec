import { createServer } from 'node:http';
import protobuf from 'protobufjs';
import { listenForTest } from './loopback-server.ts';

export interface ReceivedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  /** Empty for the root of a trace. */
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}

interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, 'service' | 'parentSpanId' | 'attributes'> & {
        parentSpanId?: string;
        attributes?: KeyValue[];
      })[];
    }[];
  }[];
}

/**
 * The messages of OTLP's trace export that the tests read, with the field numbers of
 * opentelemetry-proto's `trace.proto`, `common.proto`, `resource.proto` and `trace_service.proto`
 * (protobuf skips the fields a schema leaves out).
 */
const OTLP_TRACES = protobuf
  .parse(
    `
  syntax = "proto3";
  message AnyValue {
    oneof value {
      string string_value = 1;
      bool bool_value = 2;
      int64 int_value = 3;
      double double_value = 4;
      bytes bytes_value = 7;
    }
  }
  message KeyValue { string key = 1; AnyValue value = 2; }
  message Resource { repeated KeyValue attributes = 1; }
  message Span {
    bytes trace_id = 1;
    bytes span_id = 2;
    bytes parent_span_id = 4;
    string name = 5;
    int32 kind = 6;
    repeated KeyValue attributes = 9;
  }
  message ScopeSpans { repeated Span spans = 2; }
  message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
  message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`,
  )
  .root.lookupType('ExportTraceServiceRequest');

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would run one (`POST /v1/traces`), for
 * exporters that send protobuf (decoded with protobufjs) or JSON; it keeps every request's
 * content type and body as they came.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const contentTypes: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      bodies.push(body.toString());
      contentTypes.push(contentType);
      if (request.url === '/v1/traces') {
        if (contentType === 'application/json')
          spans.push(...spansOf(JSON.parse(body.toString()) as ExportTraceServiceRequest));
        if (contentType === 'application/x-protobuf') spans.push(...spansOf(fromProtobuf(body)));
      }
      response.setHeader('content-type', contentType || 'application/json');
      response.end(contentType === 'application/x-protobuf' ? '' : '{}');
    });
  });
  const port = await listenForTest(server);
  return { endpoint: `http://127.0.0.1:${String(port)}`, spans, bodies, contentTypes };
}

type DecodedSpan = {
  [K in keyof Span]: K extends 'traceId' | 'spanId' | 'parentSpanId' ? Uint8Array : Span[K];
};
type Span = NonNullable<
  NonNullable<
    NonNullable<ExportTraceServiceRequest['resourceSpans']>[number]['scopeSpans']
  >[number]['spans']
>[number];

/** A protobuf export as OTLP/JSON writes it: ids in hex, 64-bit integers as strings. */
function fromProtobuf(body: Buffer): ExportTraceServiceRequest {
  const decoded = OTLP_TRACES.toObject(OTLP_TRACES.decode(body), { longs: String }) as {
    resourceSpans?: {
      resource?: { attributes?: KeyValue[] };
      scopeSpans?: { spans?: DecodedSpan[] }[];
    }[];
  };
  const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');
  return {
    resourceSpans: (decoded.resourceSpans ?? []).map(({ resource, scopeSpans }) => ({
      ...(resource === undefined ? {} : { resource }),
      scopeSpans: (scopeSpans ?? []).map(({ spans }) => ({
        spans: (spans ?? []).map(({ traceId, spanId, parentSpanId, ...span }) => ({
          ...span,
          traceId: hex(traceId),
          spanId: hex(spanId),
          parentSpanId: hex(parentSpanId),
        })),
      })),
    })),
  };
}

function spansOf(request: ExportTraceServiceRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap(({ resource, scopeSpans }) => {
    const service = attributesOf(resource?.attributes)['service.name'];
    return (scopeSpans ?? []).flatMap(({ spans }) =>
      (spans ?? []).map((span) => ({
        service: String(service),
        name: span.name,
        kind: span.kind,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        attributes: attributesOf(span.attributes),
      })),
    );
  });
}

/** OTLP's typed values (`{ stringValue }`, `{ intValue }`, …) as plain ones. */
function attributesOf(attributes: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
}
