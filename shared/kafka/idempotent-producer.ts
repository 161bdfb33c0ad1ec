import {
  Partitioners,
  type ICustomPartitioner,
  type Kafka,
  type Message,
  type Producer,
  type ProducerBatch,
  type ProducerConfig,
  type RecordMetadata,
} from 'kafkajs';

export interface IdempotentProducer {
  /** Sends with acks=all once every earlier send has settled. */
  sendBatch(batch: Omit<ProducerBatch, 'acks'>): Promise<RecordMetadata[]>;
  /**
   * Replaces the producer after the sends already made, so that the next send reads the cluster's
   * metadata afresh: kafkajs refreshes it only every `metadataMaxAge` (5 minutes by default).
   */
  refresh(): Promise<void>;
  /** Waits for the sends already made, then disconnects; later sends are refused. */
  disconnect(): Promise<void>;
}

export type IdempotentProducerOptions = Omit<ProducerConfig, 'idempotent' | 'transactionalId'>;

/**
 * kafkajs's idempotent producer, kept safe with bounded retries. kafkajs hands a partition's
 * sequence numbers back when a produce request fails, and the next request reuses them: if the
 * failed one had been written after all (only its answer was lost), the broker takes the next
 * batch of the same length for its duplicate and acknowledges it unwritten. So sends go one at a
 * time, a producer whose send failed is replaced, with a new producer id, before the next, and a
 * message keeps the partition it was first given (below).
 */
export async function idempotentProducer(
  kafka: Kafka,
  options: IdempotentProducerOptions,
  onDiscardFailed: (error: unknown) => void,
): Promise<IdempotentProducer> {
  const discard = (producer: Producer) => {
    producer.disconnect().catch(onDiscardFailed);
  };
  const createPartitioner = stablePartitions(
    options.createPartitioner ?? Partitioners.DefaultPartitioner,
  );
  const connected = async (): Promise<Producer> => {
    const producer = kafka.producer({ ...options, createPartitioner, idempotent: true });
    try {
      await producer.connect();
    } catch (error) {
      discard(producer);
      throw error;
    }
    return producer;
  };

  let current: Producer | undefined = await connected();
  let closed = false;
  let previous: Promise<unknown> = Promise.resolve();

  const send = async (batch: Omit<ProducerBatch, 'acks'>): Promise<RecordMetadata[]> => {
    current ??= await connected();
    const producer = current;
    try {
      return await producer.sendBatch({ ...batch, acks: -1 });
    } catch (error) {
      current = undefined;
      discard(producer);
      throw error;
    }
  };

  return {
    sendBatch(batch) {
      if (closed) return Promise.reject(new Error('the producer is disconnected'));
      const result = previous.then(() => send(batch));
      previous = result.catch(() => undefined);
      return result;
    },
    refresh() {
      const refreshed = previous.then(() => {
        if (current !== undefined) discard(current);
        current = undefined;
      });
      previous = refreshed;
      return refreshed;
    },
    async disconnect() {
      closed = true;
      await previous;
      const producer = current;
      current = undefined;
      await producer?.disconnect();
    },
  };
}

/**
 * kafkajs partitions a send again on each of its retries, and a partial failure hands back the
 * sequence numbers of every partition in the request, the written ones too. A message without a
 * key or partition would then go round-robin to another partition, the send would succeed, and
 * the partition it left would take the next batch of its length as a duplicate. kafkajs retries
 * with the same message objects, so each keeps the partition it was given first.
 * @internal Exported because its unit test retries a send with a partitioner that would move it.
 */
export function stablePartitions(create: ICustomPartitioner): ICustomPartitioner {
  return () => {
    const partition = create();
    const given = new WeakMap<Message, number>();
    return (args) => {
      const known = given.get(args.message);
      if (known !== undefined && args.partitionMetadata.some((p) => p.partitionId === known)) {
        return known;
      }
      const chosen = partition(args);
      given.set(args.message, chosen);
      return chosen;
    };
  };
}
