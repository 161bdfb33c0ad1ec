import { randomBytes } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { TOPICS } from '#shared/contracts/kafka.ts';
import { clientAs, runAs, securedUnavailable } from '../support/servers/secured.ts';

const DLQ_MAIN = 'services/writer/src/dlq/main.ts';

async function produceInvalidCommand(marker: string): Promise<void> {
  const producer = (await clientAs('producer')).producer({
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  onTestFinished(() => producer.disconnect());
  await producer.send({ topic: TOPICS.create, messages: [{ value: `not json ${marker}` }] });
}

describe.skipIf(securedUnavailable)('The DLQ tool on a secured stack', () => {
  it('When an operator lists the dead letters as the dlq principal, then the tool reads them with a group of its own and deletes that group', async () => {
    const marker = randomBytes(8).toString('hex');
    await produceInvalidCommand(marker);

    let listed = await runAs('dlq', DLQ_MAIN, ['list', '--error', '4001']);
    for (let attempt = 0; attempt < 20 && !listed.stdout.includes(marker); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      listed = await runAs('dlq', DLQ_MAIN, ['list', '--error', '4001']);
    }

    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`"value":"not json ${marker}"`);
    expect(listed.stderr).toMatch(/^\d+ dead letters on plants\.create\.dlq$/m);
  });

  it('When the gateway principal runs the DLQ tool, then it is refused reading the dead letters', async () => {
    const listed = await runAs('gateway', DLQ_MAIN, ['list']);

    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toMatch(/Not authorized to access topics|Topic authorization failed/);
  });
});
