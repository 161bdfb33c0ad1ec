import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { MongoNetworkError, MongoServerError } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeErrorIsRetriable } from '#writer/store/store-client.ts';
import { ConfigError } from '#shared/config.ts';
import { LeadersNotReadyError, leadersMissing } from '#shared/kafka/ensure-topics.ts';
import { kafkaErrorIsRetriable } from '#shared/kafka/retriable.ts';
import { createLogger } from '#shared/logger.ts';
import { StartUpError, startUpWithin } from '#shared/start-up.ts';

// The start-up pauses with node:timers/promises, whose setTimeout vitest's fake timers leave as
// it is: here it waits on the global setTimeout, which they replace.
vi.mock('node:timers/promises', async (importOriginal) => {
  const timers = await importOriginal<typeof import('node:timers/promises')>();
  const setTimeout = <T>(
    ms?: number,
    value?: T,
    { signal, ref }: { signal?: AbortSignal; ref?: boolean } = {},
  ) =>
    new Promise<T | undefined>((resolve, reject) => {
      const abort = () => {
        globalThis.clearTimeout(timer);
        reject(new DOMException('The operation was aborted', 'AbortError'));
      };
      const timer = globalThis.setTimeout(() => {
        signal?.removeEventListener('abort', abort);
        resolve(value);
      }, ms);
      if (ref === false) timer.unref();
      if (signal?.aborted === true) abort();
      else signal?.addEventListener('abort', abort, { once: true });
    });
  return { ...timers, setTimeout };
});

/** A protocol error as kafkajs makes it from a code in a broker's answer. */
function protocolError(type: string, code: number, retriable: boolean, message: string) {
  return new KafkaJSProtocolError({ type, code, retriable, message } as unknown as Error);
}

/** What kafkajs's retry makes of an error it does not retry: the error, wrapped, as its cause. */
const nonRetriable = (error: Error) =>
  Object.assign(new KafkaJSNonRetriableError(error), { cause: error });

const unknownTopic = () =>
  protocolError(
    'UNKNOWN_TOPIC_OR_PARTITION',
    3,
    true,
    'This server does not host this topic-partition',
  );
const notAuthorized = () =>
  protocolError(
    'TOPIC_AUTHORIZATION_FAILED',
    29,
    false,
    'Not authorized to access topics: [Topic authorization failed]',
  );

function loggedStartUp(timeoutMs: number) {
  const lines: { msg: string; attempt?: number; err?: { message: string } }[] = [];
  const logger = createLogger('writer', 'info', {
    write: (line: string) => {
      lines.push(JSON.parse(line) as (typeof lines)[number]);
    },
  });
  return { startUp: startUpWithin(timeoutMs, logger), lines };
}

/** An attempt that fails with each of `errors` in turn, then resolves with 'started'. */
function failingFirst(...errors: Error[]) {
  let calls = 0;
  const attempt = () => {
    const error = errors[calls];
    calls += 1;
    return error === undefined ? Promise.resolve('started') : Promise.reject(error);
  };
  return { attempt, calls: () => calls };
}

describe('Which Kafka errors a start-up retries', () => {
  it.for([
    ['UNKNOWN_TOPIC_OR_PARTITION, metadata not propagated yet', unknownTopic()],
    [
      'LEADER_NOT_AVAILABLE',
      protocolError('LEADER_NOT_AVAILABLE', 5, true, 'There is no leader for this topic-partition'),
    ],
    ['a partition without a leader in the metadata', new LeadersNotReadyError(['t/0'])],
    [
      "kafkajs's own retries run out on a broker not up yet",
      new KafkaJSNumberOfRetriesExceeded(
        new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092'),
        { retryCount: 30, retryTime: 1_000 },
      ),
    ],
    ['a retriable error kafkajs bailed on, wrapped as non-retriable', nonRetriable(unknownTopic())],
  ] as const)('When the error is %s, then it is retried', ([, error]) => {
    expect(kafkaErrorIsRetriable(error)).toBe(true);
  });

  it.for([
    ['TOPIC_AUTHORIZATION_FAILED', notAuthorized()],
    ['INVALID_CONFIG', protocolError('INVALID_CONFIG', 40, false, 'Configuration is invalid')],
    ['a refusal kafkajs wrapped as non-retriable', nonRetriable(notAuthorized())],
    ['a non-retriable error of kafkajs alone', new KafkaJSNonRetriableError('Invalid topic x')],
    ['not a Kafka error (a bug)', new TypeError('undefined is not a function')],
    ['not an Error at all', 'a string'],
  ] as const)('When the error is %s, then it is not retried', ([, error]) => {
    expect(kafkaErrorIsRetriable(error)).toBe(false);
  });
});

describe('Which store errors a start-up retries', () => {
  it('When the store cannot be reached, then it is retried; when it refuses, then not', () => {
    expect(storeErrorIsRetriable(new MongoNetworkError('connect ECONNREFUSED'))).toBe(true);
    expect(
      storeErrorIsRetriable(new MongoServerError({ code: 18, errmsg: 'Authentication failed' })),
    ).toBe(false);
  });
});

describe('A start-up step retried within its bound', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  it('When an attempt fails with retriable errors, then each is logged with what is waited for, and the step goes on until it succeeds', async () => {
    const { startUp, lines } = loggedStartUp(30_000);
    const step = failingFirst(unknownTopic(), unknownTopic());

    const result = startUp.retry('the topics', step.attempt, kafkaErrorIsRetriable);
    await vi.runAllTimersAsync();

    expect(await result).toBe('started');
    expect(step.calls()).toBe(3);
    expect(lines.map(({ msg, attempt }) => [msg, attempt])).toEqual([
      [
        'waiting for the topics: This server does not host this topic-partition (UNKNOWN_TOPIC_OR_PARTITION)',
        1,
      ],
      [
        'waiting for the topics: This server does not host this topic-partition (UNKNOWN_TOPIC_OR_PARTITION)',
        2,
      ],
    ]);
    expect(lines[0]?.err?.message).toBe('This server does not host this topic-partition');
  });

  it('When an attempt is refused, then the step fails at once naming what it waited for and the refusal', async () => {
    const { startUp, lines } = loggedStartUp(30_000);
    const step = failingFirst(notAuthorized());

    const failure = startUp.retry('the topics', step.attempt, kafkaErrorIsRetriable);

    await expect(failure).rejects.toThrow(StartUpError);
    await expect(failure).rejects.toThrow(
      'waiting for the topics cannot succeed: Not authorized to access topics: [Topic authorization failed] (TOPIC_AUTHORIZATION_FAILED)',
    );
    expect(step.calls()).toBe(1);
    expect(lines).toEqual([]);
  });

  it('When the errors stay retriable past the bound, then the step fails naming the bound and the last cause', async () => {
    const { startUp } = loggedStartUp(600);
    const attempt = () =>
      Promise.reject(
        new KafkaJSNumberOfRetriesExceeded(
          new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092'),
          { retryCount: 30, retryTime: 1_000 },
        ),
      );

    const failed = expect(startUp.retry('Kafka', attempt, kafkaErrorIsRetriable)).rejects.toThrow(
      'gave up waiting for Kafka after 600 ms (STARTUP_TIMEOUT_MS): Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    );
    await vi.runAllTimersAsync();
    await failed;
  });

  it('When an attempt is still running at the bound, then the step fails saying so', async () => {
    const { startUp } = loggedStartUp(50);

    const failed = expect(
      startUp.retry('the store', () => new Promise(() => undefined), storeErrorIsRetriable),
    ).rejects.toThrow(
      'gave up waiting for the store after 50 ms (STARTUP_TIMEOUT_MS): attempt 1 had not ended',
    );
    await vi.runAllTimersAsync();
    await failed;
  });

  it('When the bound ends during an attempt after a failed one, then the step fails naming the last failure', async () => {
    const { startUp } = loggedStartUp(2_000);
    const step = failingFirst(unknownTopic());
    const attempt = () =>
      step.calls() === 0 ? step.attempt() : new Promise<string>(() => undefined);

    const failed = expect(
      startUp.retry('the topics', attempt, kafkaErrorIsRetriable),
    ).rejects.toThrow(
      'gave up waiting for the topics after 2000 ms (STARTUP_TIMEOUT_MS): This server does not host this topic-partition (UNKNOWN_TOPIC_OR_PARTITION) (attempt 2 had not ended)',
    );
    await vi.runAllTimersAsync();
    await failed;
  });

  it('When a setting is refused, then its ConfigError passes through unchanged', async () => {
    const { startUp } = loggedStartUp(30_000);
    const refused = new ConfigError('Invalid configuration: the store refused the credentials');

    await expect(
      startUp.retry('the store', () => Promise.reject(refused), storeErrorIsRetriable),
    ).rejects.toBe(refused);
  });
});

describe('Leaders of the topics a service uses', () => {
  it('When a partition has no leader yet or a topic no partitions, then the error names each', () => {
    const partition = (partitionId: number, leader: number, partitionErrorCode = 0) => ({
      partitionId,
      leader,
      partitionErrorCode,
      replicas: [1],
      isr: [1],
    });

    expect(() => {
      leadersMissing({
        topics: [
          { name: 'a', partitions: [partition(0, 1), partition(1, -1)] },
          { name: 'b', partitions: [partition(0, 1, 5)] },
          { name: 'c', partitions: [] },
        ],
      });
    }).toThrow('no leader yet for a/1, b/0, c');
    expect(() => {
      leadersMissing({ topics: [{ name: 'a', partitions: [partition(0, 1)] }] });
    }).not.toThrow();
  });
});
