import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { GATEWAY_MAIN } from '#local/process/node-service.ts';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import type { ServerProcess } from '#local/process/server-process.ts';
import { runEntryPoint } from '../support/processes/entry-point.ts';
import { TOKEN } from '../support/servers/gateway.ts';
import { startOtlpReceiver, type ReceivedSpan } from '../support/servers/otlp-receiver.ts';
import { serviceProcesses } from '../support/servers/services.ts';
import { json, replyHeaders, startTestWriter } from '../support/servers/writer.ts';

/** OTLP's span kinds. */
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

function logLines(service: ServerProcess): Record<string, unknown>[] {
  return readFileSync(service.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function only(spans: ReceivedSpan[], matches: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(matches);
  expect(found).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

describe('Traces exported by a gateway and a writer process', () => {
  it('When the SDK exports to a collector, then one create is one trace from the gateway through the writer and back, whose ids both services log', async () => {
    const receiver = await startOtlpReceiver();
    const harness = await startTestWriter({ writer: false });
    const services = serviceProcesses(harness);
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, LOG_LEVEL: 'debug' };
    const writer = await services.startWriter('writer', env);
    const { process: gateway, url } = await services.startGateway('gateway', env);

    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        'x-request-id': 'req-traced',
      },
      body: '{"id": 7, "name": "Yarrow"}',
    });
    await harness.producer.send({
      topic: harness.topics.create,
      messages: [
        {
          key: '8',
          value: '{"id": 8, "name": "Sorrel"}',
          headers: {
            ...replyHeaders(harness.topics.replies, replyPartitionHeader(0)),
            traceparent: 'garbage',
          },
        },
      ],
    });
    const replies = await harness.received(harness.topics.replies, 2);
    // SIGTERM: each exports the spans it still holds before exiting.
    await Promise.all([gateway.stop(), writer.stop()]);

    expect(response.status).toBe(200);
    const { spans } = receiver;
    const server = only(spans, (span) => span.name === 'POST /plants');
    const trace = spans.filter((span) => span.traceId === server.traceId);
    const send = only(trace, (span) => span.name === `send ${harness.topics.create}`);
    const processed = only(trace, (span) => span.service === 'plant-store-writer');
    const replied = only(trace, (span) => span.name === `process ${harness.topics.replies}`);
    expect(trace).toHaveLength(4);
    expect(server).toMatchObject({
      service: 'plant-store-gateway',
      kind: SERVER,
      parentSpanId: '',
    });
    expect(server.attributes).toMatchObject({ 'http.route': '/plants', 'url.path': '/plants' });
    expect(Number(server.attributes['http.response.status_code'])).toBe(200);
    expect(send).toMatchObject({
      service: 'plant-store-gateway',
      kind: PRODUCER,
      parentSpanId: server.spanId,
    });
    expect(processed).toMatchObject({
      name: `process ${harness.topics.create}`,
      kind: CONSUMER,
      parentSpanId: send.spanId,
    });
    expect(replied).toMatchObject({
      service: 'plant-store-gateway',
      kind: CONSUMER,
      parentSpanId: processed.spanId,
    });

    const gatewayLines = logLines(gateway).filter((line) => line.reqId === 'req-traced');
    expect(gatewayLines.map((line) => line.msg)).toEqual([
      'incoming request',
      'create command published',
      'request completed',
    ]);
    for (const line of gatewayLines) {
      expect(line).toMatchObject({ trace_id: server.traceId, span_id: server.spanId });
    }
    expect(logLines(writer).filter((line) => line.reqId === 'req-traced')).toEqual([
      expect.objectContaining({
        msg: 'create command answered',
        trace_id: server.traceId,
        span_id: processed.spanId,
      }),
    ]);

    // The command whose traceparent is unreadable: answered, in a trace of its own.
    const stranger = only(spans, (span) => span.attributes['messaging.kafka.message.key'] === '8');
    expect(stranger).toMatchObject({ service: 'plant-store-writer', parentSpanId: '' });
    expect(stranger.traceId).not.toBe(server.traceId);
    const strangerReply = replies.find(({ message }) =>
      message.headers?.traceparent?.toString().includes(stranger.traceId),
    );
    expect(json(strangerReply)).toEqual({ status: 200, plant: { name: 'Sorrel' } });
    expect(strangerReply?.message.headers?.traceparent?.toString()).toBe(
      `00-${stranger.traceId}-${stranger.spanId}-01`,
    );

    expect(receiver.bodies.join('\n')).not.toContain(TOKEN);
    // The specification's default protocol.
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/x-protobuf']));
  });

  it('When the gateway exports JSON and samples parent-based, always off, then a request whose caller sampled its trace is traced, and one without a parent is not', async () => {
    const receiver = await startOtlpReceiver();
    const harness = await startTestWriter();
    const { process: gateway, url } = await serviceProcesses(harness).startGateway('gateway', {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_always_off',
    });
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const create = (id: number, headers: Record<string, string>) =>
      fetch(`${url}/plants`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          ...headers,
        },
        body: `{"id": ${String(id)}, "name": "Tansy"}`,
      });

    const [sampled, unsampled] = await Promise.all([
      create(21, { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` }),
      create(22, {}),
    ]);
    await gateway.stop();

    expect([sampled.status, unsampled.status]).toEqual([200, 200]);
    expect(receiver.spans.length).toBeGreaterThan(0);
    expect(new Set(receiver.spans.map(({ traceId }) => traceId))).toEqual(new Set([callerTrace]));
    expect(only(receiver.spans, (span) => span.name === 'POST /plants').parentSpanId).toBe(
      '00f067aa0ba902b7',
    );
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/json']));
  });

  it.for([
    ['OTEL_TRACES_SAMPLER', 'probabilistic', 'OTEL_TRACES_SAMPLER must be one of'],
    ['OTEL_TRACES_SAMPLER_ARG', '2', 'OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1'],
    [
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'grpc',
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json',
    ],
  ] as const)(
    'When %s is %s, then the gateway stops at start-up naming it',
    async ([name, value, message]) => {
      const env = {
        ...process.env,
        AUTH_TOKENS: TOKEN,
        PORT: '0',
        KAFKA_BROKERS: inject('kafkaBrokers'),
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_TRACES_SAMPLER: 'traceidratio',
        [name]: value,
      };

      const exit = await runEntryPoint(GATEWAY_MAIN, [], env);

      expect(exit.code).toBe(1);
      expect(exit.stderr).toContain(`Invalid configuration: ${message}`);
    },
  );
});
