import type { IHeaders } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/servers/gateway.ts';

// These services run without the OpenTelemetry SDK (no OTEL_EXPORTER_OTLP_ENDPOINT): what is
// checked is the trace context that still travels. test/gateway/trace.process.test.ts exports.
const CLIENT_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const header = (headers: IHeaders | undefined, name: string) => headers?.[name]?.toString();

describe('Trace context without the SDK', () => {
  it("When a client sends a traceparent, then the command carries it and the reply continues the client's trace", async () => {
    const gateway = await startTestGateway();

    const response = await gateway.post('{"id": 91, "name": "Basil"}', {
      traceparent: CLIENT_TRACEPARENT,
      tracestate: 'vendor=opaque',
    });

    expect(response.statusCode).toBe(200);
    const [command] = await gateway.received(gateway.topics.create, 1);
    expect(header(command?.message.headers, 'traceparent')).toBe(CLIENT_TRACEPARENT);
    expect(header(command?.message.headers, 'tracestate')).toBe('vendor=opaque');
    const [reply] = await gateway.received(gateway.topics.replies, 1);
    expect(header(reply?.message.headers, 'traceparent')).toBe(CLIENT_TRACEPARENT);
  });

  it('When a client sends no traceparent, then the command carries none: nothing records a trace to continue', async () => {
    const gateway = await startTestGateway();

    const response = await gateway.post('{"id": 92, "name": "Dill"}');

    expect(response.statusCode).toBe(200);
    const [command] = await gateway.received(gateway.topics.create, 1);
    expect(command?.message.headers).not.toHaveProperty('traceparent');
  });
});
