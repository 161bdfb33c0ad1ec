import { describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { produceWithJava, type JavaCompression } from '../support/clients/java-producer.ts';
import { json, replyHeaders, startTestWriter } from '../support/servers/writer.ts';

describe('Writer and compressed commands', () => {
  it.each<JavaCompression>(['gzip', 'snappy', 'lz4', 'zstd'])(
    'When a Java producer with compression.type=%s sends a command, then it is stored and answered, and so is the next command',
    async (compression) => {
      const writer = await startTestWriter();
      const correlationId = `java-${compression}`;

      await produceWithJava(compression, {
        topic: writer.topics.create,
        key: '31',
        value: `{"id": 31, "name": "Calathea", "tag": "${compression}"}`,
        headers: {
          kafka_correlationId: correlationId,
          kafka_replyTopic: writer.topics.replies,
          kafka_replyPartition: '0',
        },
      });
      await writer.producer.send({
        topic: writer.topics.create,
        messages: [
          {
            key: '32',
            value: '{"id": 32, "name": "Pilea"}',
            headers: replyHeaders(writer.topics.replies, replyPartitionHeader(0)),
          },
        ],
      });

      const replies = await writer.received(writer.topics.replies, 2);
      const fromJava = replies.find(
        ({ message }) => message.headers?.kafka_correlationId?.toString() === correlationId,
      );
      expect(json(fromJava)).toEqual({
        status: 200,
        plant: { name: 'Calathea', tag: compression },
      });
      expect(replies.map(json)).toContainEqual({ status: 200, plant: { name: 'Pilea' } });
      const stored = await writer.db.collection<StoredPlant>('plants').findOne({ _id: 31n });
      expect(stored).toMatchObject({ name: 'Calathea', tag: compression });
    },
  );
});
