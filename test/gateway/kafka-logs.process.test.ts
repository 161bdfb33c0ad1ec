import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { localServersUnavailable } from '../support/servers/local-servers.ts';
import { ownKafka } from '../support/servers/own-kafka.ts';
import { serviceProcesses } from '../support/servers/services.ts';
import { startTestWriter } from '../support/servers/writer.ts';

const linesOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

describe.skipIf(localServersUnavailable)('One log stream', () => {
  it("When the gateway's broker goes away, then kafkajs's complaint is a pino line of the gateway, like every other line", async () => {
    const broker = await ownKafka();
    const harness = await startTestWriter({ writer: false });
    const { process: gateway } = await serviceProcesses(harness).startGateway('gateway', {
      KAFKA_BROKERS: broker.brokers,
    });

    await broker.stop();
    await expect
      .poll(() => linesOf(gateway.logFile).some((line) => line.includes('ECONNREFUSED')), {
        timeout: 30_000,
      })
      .toBe(true);
    // Its clients would retry a broker that is not coming back for their whole budget.
    gateway.kill('SIGKILL');

    const lines = linesOf(gateway.logFile).map(
      (line) => JSON.parse(line) as Record<string, unknown>,
    );
    for (const line of lines) {
      expect(line).toMatchObject({
        level: expect.any(Number) as number,
        time: expect.any(Number) as number,
        name: 'gateway',
        msg: expect.any(String) as string,
      });
      expect(line).not.toHaveProperty('timestamp');
      expect(line).not.toHaveProperty('logger');
    }
    const refused = lines.find(({ msg }) => String(msg).includes('ECONNREFUSED'));
    expect(refused).toMatchObject({
      level: 50,
      msg: `Connection error: connect ECONNREFUSED ${broker.brokers}`,
      kafka: {
        namespace: 'Connection',
        broker: broker.brokers,
        clientId: 'plant-store-gateway',
        stack: expect.stringContaining('ECONNREFUSED') as string,
      },
    });
  });
});
