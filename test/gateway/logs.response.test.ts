import { describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.ts';
import { attachGateway, TOKEN } from '../support/gateway.ts';
import { startTestWriter } from '../support/writer.ts';

function capturedLogger(service: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(service, 'debug', {
    write: (line: string) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { logger, lines };
}

describe('Logs of one create', () => {
  it('When a request carries x-request-id, then both services log it with the same correlation id, and never the token', async () => {
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
        requestId: 'req-7f3a',
        correlationId: published?.correlationId,
        status: 200,
      });
    expect(JSON.stringify([...gatewayLogs.lines, ...writerLogs.lines])).not.toContain(TOKEN);
  });
});
