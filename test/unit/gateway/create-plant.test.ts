import { ROOT_CONTEXT } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { CommandPublisher, CreateCommand } from '#gateway/kafka/command-publisher.ts';
import { concurrencyLimit, type ConcurrencyLimit } from '#gateway/admission/concurrency-limit.ts';
import { admitted, createPlantOverKafka } from '#gateway/create-plant.ts';
import { replyWaiter } from '#gateway/kafka/reply-waiter.ts';

const REPLY_TIMEOUT_MS = 50;
const plant = { id: 7n, name: 'Fern' };
const request = { id: 'req-1', log: { debug: () => undefined }, trace: ROOT_CONTEXT };

/** A publisher whose sends settle as `publish` says, and a create over it. */
function createOver(
  publish: (command: CreateCommand) => Promise<void>,
  admission: ConcurrencyLimit = concurrencyLimit({
    max: 10,
    min: 10,
    initial: 10,
    latencyTargetMs: 0,
    crowdedAt: 10,
    quietBelow: 1,
  }),
) {
  const waiter = replyWaiter();
  const publisher: CommandPublisher = { publish, disconnect: () => Promise.resolve() };
  const create = createPlantOverKafka({
    publisher,
    waiter,
    replyTimeoutMs: REPLY_TIMEOUT_MS,
    admission,
  });
  return { create, waiter };
}

describe('createPlantOverKafka', () => {
  it('When the command is published and a writer answers, then the answer is the outcome', async () => {
    const { create, waiter } = createOver((command) => {
      setImmediate(() => {
        waiter.deliver(command.correlationId, { status: 200, plant });
      });
      return Promise.resolve();
    });

    expect(await create(plant, request)).toEqual({
      kind: 'answered',
      reply: { status: 200, plant },
    });
  });

  it('When Kafka refuses the command, then it is unpublished and nothing waits for a reply', async () => {
    const refusal = new Error('broker unavailable');
    const { create, waiter } = createOver(() => Promise.reject(refusal));

    expect(await create(plant, request)).toEqual({ kind: 'unpublished', cause: refusal });
    expect(waiter.waiting).toBe(0);
  });

  it('When the publish is still under way at the deadline, then the outcome is a timeout at the deadline', async () => {
    const { create, waiter } = createOver(() => new Promise<void>(() => undefined));

    const outcome = await create(plant, request);

    expect(outcome).toEqual({ kind: 'timedOut', afterMs: REPLY_TIMEOUT_MS });
    expect(waiter.waiting).toBe(0);
  });

  it('When the publish fails after a while but before the deadline, then it is unpublished', async () => {
    const refusal = new Error('broker unavailable');
    const { create } = createOver(
      () =>
        new Promise<void>((_resolve, reject) => {
          setTimeout(() => {
            reject(refusal);
          }, REPLY_TIMEOUT_MS / 2);
        }),
    );

    expect(await create(plant, request)).toEqual({ kind: 'unpublished', cause: refusal });
  });

  it('When a writer answers before Kafka acknowledges the send, then the answer stands even if the send then fails', async () => {
    const { create, waiter } = createOver(
      (command) =>
        new Promise<void>((_resolve, reject) => {
          waiter.deliver(command.correlationId, { status: 200, plant });
          setTimeout(() => {
            reject(new Error('request timed out'));
          }, 5);
        }),
    );

    expect(await create(plant, request)).toEqual({
      kind: 'answered',
      reply: { status: 200, plant },
    });
  });

  it('When Kafka acknowledges the send only after the deadline, then the outcome is a timeout', async () => {
    const { create } = createOver(
      () =>
        new Promise<void>((resolve) => {
          setTimeout(resolve, REPLY_TIMEOUT_MS * 2);
        }),
    );

    expect(await create(plant, request)).toEqual({ kind: 'timedOut', afterMs: REPLY_TIMEOUT_MS });
  });

  it('When as many creates wait as are admitted, then the next is busy and not published, and one leaving makes room', async () => {
    const admission = concurrencyLimit({
      max: 2,
      min: 2,
      initial: 2,
      latencyTargetMs: 0,
      crowdedAt: 2,
      quietBelow: 1,
    });
    const published: CreateCommand[] = [];
    const { create, waiter } = createOver((command) => {
      published.push(command);
      return Promise.resolve();
    }, admission);

    const first = create(plant, request);
    const second = create({ id: 8n, name: 'Moss' }, request);
    const refused = await create({ id: 9n, name: 'Ivy' }, request);
    await expect.poll(() => published.length).toBe(2);
    const [command] = published;
    if (command !== undefined) waiter.deliver(command.correlationId, { status: 200, plant });
    await first;

    expect(refused).toEqual({ kind: 'busy', waiting: 2 });
    expect(published).toHaveLength(2);
    expect(admission.inFlight).toBe(1);
    expect(admission.hasRoom()).toBe(true);
    expect(await second).toEqual({ kind: 'timedOut', afterMs: REPLY_TIMEOUT_MS });
    expect(admission.inFlight).toBe(0);
  });
});

describe('admitted', () => {
  const limitOf = (max: number) =>
    concurrencyLimit({
      max,
      min: max,
      initial: max,
      latencyTargetMs: 0,
      crowdedAt: max,
      quietBelow: 1,
    });

  it('When the limit is full, then the create is busy and never reaches what answers it', async () => {
    const admission = limitOf(1);
    let calls = 0;
    let release: () => void = () => undefined;
    const create = admitted(admission, () => {
      calls++;
      return new Promise((resolve) => {
        release = () => {
          resolve({ kind: 'answered', reply: { status: 200, plant } });
        };
      });
    });

    const first = create(plant, request);
    const second = await create(plant, request);
    release();

    expect(second).toEqual({ kind: 'busy', waiting: 1 });
    expect(await first).toEqual({ kind: 'answered', reply: { status: 200, plant } });
    expect(calls).toBe(1);
    expect(admission.inFlight).toBe(0);
  });
});
