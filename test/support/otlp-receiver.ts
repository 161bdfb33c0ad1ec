import { createServer } from 'node:http';
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
 * An OTLP/HTTP trace receiver on loopback, as a collector would run one, for exporters that send
 * JSON (`POST /v1/traces`); every request body it received is kept as it came.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      bodies.push(body);
      if (request.url === '/v1/traces' && request.headers['content-type'] === 'application/json') {
        spans.push(...spansOf(JSON.parse(body) as ExportTraceServiceRequest));
      }
      response.setHeader('content-type', 'application/json');
      response.end('{}');
    });
  });
  const port = await listenForTest(server);
  return { endpoint: `http://127.0.0.1:${String(port)}`, spans, bodies };
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
