import { describe, expect, it } from 'vitest';
import { readWriterConfig } from '#writer/config.ts';

const required = { KAFKA_BROKERS: '127.0.0.1:9092', MONGODB_URI: 'mongodb://127.0.0.1:27017' };

describe('Configuration read at boot', () => {
  it('When only the required variables are set, then the defaults apply and numbers are numbers', () => {
    expect(readWriterConfig(required)).toEqual({
      ...required,
      MONGODB_DATABASE: 'plantstore',
      KAFKA_PARTITIONS: 3,
      KAFKA_CREATE_TOPIC: 'plants.create',
      KAFKA_REPLY_TOPIC: 'plants.create.replies',
      KAFKA_DLQ_TOPIC: 'plants.create.dlq',
      KAFKA_WRITER_GROUP: 'plant-writers',
      HEADERS_TIMEOUT_MS: 3_000,
      KEEP_ALIVE_TIMEOUT_MS: 5_000,
      KAFKA_SESSION_TIMEOUT_MS: 6_000,
      ANSWER_LINGER_MAX_MS: 8,
      HOST: '127.0.0.1',
      METRICS_PORT: 9464,
      KAFKA_SSL: false,
      KAFKA_SSL_CHECK_HOSTNAME: true,
      kafka: { brokers: ['127.0.0.1:9092'] },
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: 25_000,
      STARTUP_TIMEOUT_MS: 45_000,
    });
    expect(readWriterConfig({ ...required, KAFKA_PARTITIONS: '12' }).KAFKA_PARTITIONS).toBe(12);
    expect(() => readWriterConfig({ ...required, METRICS_PORT: '70000' })).toThrow(
      'METRICS_PORT must be <= 65535 (got "70000")',
    );
    expect(
      readWriterConfig({ ...required, KAFKA_SESSION_TIMEOUT_MS: '2000' }).KAFKA_SESSION_TIMEOUT_MS,
    ).toBe(2_000);
    expect(() => readWriterConfig({ ...required, KAFKA_SESSION_TIMEOUT_MS: '500' })).toThrow(
      'KAFKA_SESSION_TIMEOUT_MS must be >= 1000 (got "500")',
    );
    expect(readWriterConfig({ ...required, ANSWER_LINGER_MAX_MS: '0' }).ANSWER_LINGER_MAX_MS).toBe(
      0,
    );
    expect(() => readWriterConfig({ ...required, ANSWER_LINGER_MAX_MS: '-1' })).toThrow(
      'ANSWER_LINGER_MAX_MS must be >= 0 (got "-1")',
    );
  });

  it('When variables are missing or invalid, then one error names every one of them and what it got', () => {
    expect(() =>
      readWriterConfig({
        MONGODB_URI: 'postgres://user:secret@x',
        KAFKA_PARTITIONS: 'many',
        LOG_LEVEL: 'loud',
        KAFKA_CREATE_TOPIC: 'plants/create',
      }),
    ).toThrow(
      'Invalid configuration: KAFKA_BROKERS must be set; ' +
        'KAFKA_PARTITIONS must be integer (got "many"); ' +
        'KAFKA_CREATE_TOPIC must match pattern "^[a-zA-Z0-9._-]{1,249}$" (got "plants/create"); ' +
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud"); ' +
        'MONGODB_URI must match pattern "^mongodb(\\+srv)?://" (value hidden)',
    );
  });
});
