import { describe, expect, it } from 'vitest';
import { LeadersNotReadyError, offsetsReadable } from '#shared/kafka/ensure-topics.ts';
import { kafkaErrorIsRetriable } from '#shared/kafka/retriable.ts';

describe('Reading a new topic’s offsets at start-up', () => {
  it('When kafkajs fails on an answer without the topic (a TypeError inside it), then it is a leader not ready yet, and retried', async () => {
    const admin = {
      fetchTopicOffsets: () =>
        Promise.reject(
          new TypeError(
            "Cannot destructure property 'partitions' of 'high.pop(...)' as it is undefined.",
          ),
        ),
    };

    const failure = await offsetsReadable(admin, 'plants.create').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(LeadersNotReadyError);
    expect(failure).toMatchObject({ message: 'no leader yet for plants.create' });
    expect(kafkaErrorIsRetriable(failure)).toBe(true);
  });

  it('When Kafka refuses the read, then that error is what fails', async () => {
    const refusal = Object.assign(new Error('Not authorized to access topics'), {
      retriable: false,
    });
    const admin = { fetchTopicOffsets: () => Promise.reject(refusal) };

    await expect(offsetsReadable(admin, 'plants.create')).rejects.toBe(refusal);
  });
});
