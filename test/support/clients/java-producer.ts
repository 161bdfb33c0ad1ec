import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { provisionKafka } from '#local/kafka/jars.ts';
import { cacheRoot, stateRoot } from '#local/provision/paths.ts';

export type JavaCompression = 'gzip' | 'snappy' | 'lz4' | 'zstd';

export interface JavaRecord {
  topic: string;
  key: string;
  value: string;
  headers: Record<string, string>;
}

/**
 * Produces one record with the Java client (the broker's own kafka-clients jar and its
 * snappy-java, lz4-java and zstd-jni) and `compression.type`, as a JVM service would.
 */
export async function produceWithJava(
  compression: JavaCompression,
  record: JavaRecord,
): Promise<void> {
  const libs = await provisionKafka(cacheRoot(), join(stateRoot, 'provision.log'));
  await promisify(execFile)(
    'java',
    [
      '-cp',
      join(libs, '*'),
      join(import.meta.dirname, 'java', 'CompressedProducer.java'),
      inject('kafkaBrokers'),
      record.topic,
      compression,
      record.key,
      record.value,
      ...Object.entries(record.headers).map(([name, value]) => `${name}=${value}`),
    ],
    { timeout: 60_000 },
  );
}
