import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { aPlant, type TestPlant } from '../support/clients/plants.ts';
import { serviceProcesses } from '../support/servers/services.ts';
import { replyHeaders, startTestWriter } from '../support/servers/writer.ts';

describe(
  'A writer process stopped with SIGTERM in the middle of a rebalance',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When SIGTERM reaches a writer after its group began rebalancing for a new writer and before it is stable, then every command is answered, one command never gets two different answers, and the store agrees with every answer', async () => {
      const harness = await startTestWriter({ writer: false });
      const services = serviceProcesses(harness);
      const stopping = await services.startWriter('writer-a');
      const admin = harness.kafka.admin();
      await admin.connect();
      onTestFinished(() => admin.disconnect());

      // Fresh ids, repeats of an earlier command, and conflicting content for an earlier id.
      const sent = new Map<string, TestPlant>();
      const earlier: TestPlant[] = [];
      const nextPlant = (index: number): TestPlant => {
        const before = earlier[Math.floor(Math.random() * earlier.length)];
        if (before !== undefined && index % 5 === 0) return before;
        if (before !== undefined && index % 7 === 0) return before.with({ name: `other ${index}` });
        const plant = aPlant();
        earlier.push(plant);
        return plant;
      };
      const load = { sending: true };
      let index = 0;
      const producing = (async () => {
        while (load.sending) {
          const messages = Array.from({ length: 10 }, () => {
            const plant = nextPlant(++index);
            const headers = replyHeaders(harness.topics.replies, replyPartitionHeader(0));
            sent.set(headers.kafka_correlationId.toString('hex'), plant);
            return { key: plant.id.toString(), value: plant.body, headers };
          });
          await harness.producer.send({ topic: harness.topics.create, messages });
          await sleep(5);
        }
      })();
      await harness.received(harness.topics.replies, 300);

      const joining = services.startWriter('writer-b');
      expect(await rebalanceSeen(() => admin.describeGroups([services.groupId]))).toBe(true);
      stopping.kill('SIGTERM');
      const exit = await stopping.exited;
      await joining;
      const answeredAtTakeover = (await harness.received(harness.topics.replies, 0)).length;
      await expect
        .poll(async () => (await harness.received(harness.topics.replies, 0)).length, {
          timeout: 30_000,
        })
        .toBeGreaterThan(answeredAtTakeover + 300);
      load.sending = false;
      await producing;

      await expect
        .poll(
          async () => {
            const answered = new Set(
              (await harness.received(harness.topics.replies, 0)).map(({ message }) =>
                message.headers?.kafka_correlationId?.toString('hex'),
              ),
            );
            return [...sent.keys()].filter((id) => !answered.has(id)).length;
          },
          { timeout: 30_000 },
        )
        .toBe(0);
      const answers = new Map<string, Set<string>>();
      for (const { message } of await harness.received(harness.topics.replies, 0)) {
        const id = message.headers?.kafka_correlationId?.toString('hex') ?? '';
        answers.set(id, (answers.get(id) ?? new Set()).add(message.value?.toString() ?? ''));
      }
      const stored = new Map(
        (
          await harness.db
            .collection<{ _id: bigint; name: string }>('plants')
            .find({}, { projection: { createdAt: 0 } })
            .toArray()
        ).map(({ _id, name }) => [_id, name]),
      );

      const answeredTwice = [...answers.values()].filter((each) => each.size > 1);
      console.log(
        `${String(sent.size)} commands; replies: ${String((await harness.received(harness.topics.replies, 0)).length)}`,
      );
      expect(exit).toEqual({ code: 0, signal: null });
      expect(answeredTwice).toEqual([]);
      for (const [correlationId, plant] of sent) {
        const [answer] = [...(answers.get(correlationId) ?? [])];
        const reply = JSON.parse(answer ?? 'null') as
          | { status: 200; plant: { id: string; name: string } }
          | { status: 400; error: { error: number } };
        const storedName = stored.get(plant.id);
        if (reply.status === 200) {
          expect(reply.plant.name).toBe(plant.name);
          expect(storedName).toBe(plant.name);
        } else {
          expect(reply.error.error).toBe(4009);
          expect(storedName).not.toBe(plant.name);
        }
      }
      expect([...stored.keys()].sort()).toEqual(earlier.map(({ id }) => id).sort());
    });
  },
);

/**
 * Whether the group is seen rebalancing within 30 s. A join on this machine rebalances in about
 * 100 ms, less than some round trips of a describe, so a describe is sent every 5 ms without
 * waiting for the one before (at most 20 at once), and the first that answers a rebalancing state
 * ends the wait.
 */
async function rebalanceSeen(
  describe: () => Promise<{ groups: { state: string }[] }>,
): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  const found = { seen: false };
  let inFlight = 0;
  while (!found.seen && Date.now() < deadline) {
    if (inFlight < 20) {
      inFlight++;
      void describe()
        .then(({ groups }) => {
          if (/^(PreparingRebalance|CompletingRebalance)$/.test(groups[0]?.state ?? ''))
            found.seen = true;
        })
        .catch(() => undefined)
        .finally(() => {
          inFlight--;
        });
    }
    await sleep(5);
  }
  return found.seen;
}
