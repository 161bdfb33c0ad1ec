import { describe, expect, it } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import { attachGateway } from '../support/servers/gateway.ts';
import { abandonedPost } from '../support/clients/http-client.ts';
import { startTestWriter } from '../support/servers/writer.ts';

function capturedLogger(service: string, level: 'debug' | 'info' = 'debug') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(service, level, {
    write: (line: string) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines };
}

describe('Logs of one create', () => {
  it('When a request carries x-request-id, then both services log it with the same correlation id', async () => {
    const gatewayLogs = capturedLogger('gateway');
    const writerLogs = capturedLogger('writer');
    const harness = await startTestWriter({ logger: writerLogs.logger });
    const gateway = await attachGateway(harness, { logger: gatewayLogs.logger });

    const response = await gateway.post('{"id": 64, "name": "Sage"}', {
      'x-request-id': 'req-7f3a',
    });

    expect(response.statusCode).toBe(200);
    const published = gatewayLogs.lines.find((line) => line.msg === 'create command published');
    expect(published).toMatchObject({
      reqId: 'req-7f3a',
      plantId: '64',
      correlationId: expect.any(String) as string,
    });
    await expect
      .poll(() => writerLogs.lines.find((line) => line.msg === 'create command answered'))
      .toMatchObject({
        reqId: 'req-7f3a',
        correlationId: published?.correlationId,
        status: 200,
      });
  });

  it('When a request carries a traceparent, then every line either service writes about it carries its request id and trace id', async () => {
    const gatewayLogs = capturedLogger('gateway');
    const writerLogs = capturedLogger('writer');
    const harness = await startTestWriter({ logger: writerLogs.logger });
    const gateway = await attachGateway(harness, { logger: gatewayLogs.logger });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

    const response = await gateway.post('{"id": 65, "name": "Thyme"}', {
      'x-request-id': 'req-5e1b',
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    });

    expect(response.statusCode).toBe(200);
    await expect
      .poll(() => writerLogs.lines.filter((line) => line.reqId === 'req-5e1b'))
      .toEqual([expect.objectContaining({ msg: 'create command answered', trace_id: traceId })]);
    const aboutTheRequest = gatewayLogs.lines.filter((line) => line.reqId === 'req-5e1b');
    expect(aboutTheRequest.map((line) => line.msg)).toEqual([
      'incoming request',
      'create command published',
      'request completed',
    ]);
    for (const line of aboutTheRequest) {
      expect(line).toMatchObject({ trace_id: traceId, span_id: expect.any(String) as string });
    }
    expect(gatewayLogs.lines.filter((line) => 'trace_id' in line && !('reqId' in line))).toEqual(
      [],
    );
  });

  it('When the gateway logs at info, then each request has one access line, written when it ends, with the request, its answer and its time', async () => {
    const gatewayLogs = capturedLogger('gateway', 'info');
    const harness = await startTestWriter();
    const gateway = await attachGateway(harness, { logger: gatewayLogs.logger });

    const created = await gateway.post('{"id": 67, "name": "Dill"}', { 'x-request-id': 'req-one' });
    const refused = await gateway.post('{"id": "x"}', { 'x-request-id': 'req-bad' });

    expect([created.statusCode, refused.statusCode]).toEqual([200, 400]);
    const linesOf = (reqId: string) => gatewayLogs.lines.filter((line) => line.reqId === reqId);
    for (const [reqId, statusCode] of [
      ['req-one', 200],
      ['req-bad', 400],
    ] as const) {
      expect(linesOf(reqId)).toEqual([
        expect.objectContaining({
          level: 30,
          msg: 'request completed',
          req: expect.objectContaining({ method: 'POST', url: '/plants' }) as unknown,
          res: { statusCode },
          responseTime: expect.any(Number) as number,
        }),
      ]);
    }
  });

  it('When a client hangs up before its answer, then the gateway logs that, with its request id, instead of a completed request', async () => {
    const gatewayLogs = capturedLogger('gateway');
    const harness = await startTestWriter({ writer: false });
    const gateway = await attachGateway(harness, {
      logger: gatewayLogs.logger,
      replyTimeoutMs: 2_000,
    });
    const address = await gateway.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const client = abandonedPost(address, '{"id": 66, "name": "Basil"}', {
      'x-request-id': 'req-gone',
    });
    const aboutTheRequest = () =>
      gatewayLogs.lines.filter((line) => line.reqId === 'req-gone').map((line) => line.msg);

    await expect.poll(aboutTheRequest).toContain('create command published');
    const hungUp = await client.hangUp();

    expect(hungUp).toBe('AbortError');
    await expect
      .poll(aboutTheRequest)
      .toEqual([
        'incoming request',
        'create command published',
        'client closed the connection before the answer',
      ]);
    expect(
      gatewayLogs.lines.find((line) => line.reqId === 'req-gone' && line.level === 30),
    ).toMatchObject({
      msg: 'client closed the connection before the answer',
      req: { method: 'POST', url: '/plants' },
    });
  });
});
