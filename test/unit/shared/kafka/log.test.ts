import { logLevel, type LogEntry } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaLogCreator } from '#shared/kafka/log.ts';
import { createLogger } from '#shared/logger.ts';

function kafkaLogOf(service: string, level: 'warn' | 'error' = 'warn') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(service, level, {
    write: (line: string) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return { log: kafkaLogCreator(logger)(logLevel.WARN), lines };
}

const entry = (
  level: logLevel,
  message: string,
  fields: Record<string, unknown> = {},
): LogEntry => ({
  namespace: 'Connection',
  level,
  label: logLevel[level],
  log: { timestamp: '2026-11-25T07:00:00.000Z', logger: 'kafkajs', message, ...fields },
});

describe('kafkaLogCreator', () => {
  it('When kafkajs logs an error, then the service writes a pino line with its fields under kafka', () => {
    const { log, lines } = kafkaLogOf('writer');

    log(
      entry(logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092', {
        broker: '127.0.0.1:9092',
        clientId: 'plant-store-writer',
        stack: 'Error: connect ECONNREFUSED',
      }),
    );

    expect(lines).toEqual([
      {
        level: 50,
        time: expect.any(Number) as number,
        pid: process.pid,
        hostname: expect.any(String) as string,
        name: 'writer',
        msg: 'Connection error: connect ECONNREFUSED 127.0.0.1:9092',
        kafka: {
          namespace: 'Connection',
          broker: '127.0.0.1:9092',
          clientId: 'plant-store-writer',
          stack: 'Error: connect ECONNREFUSED',
        },
      },
    ]);
  });

  it('When kafkajs logs at each level, then pino gets the same level and the logger filters it', () => {
    const { log, lines } = kafkaLogOf('gateway', 'warn');

    log(entry(logLevel.WARN, 'a warning'));
    log(entry(logLevel.INFO, 'some news'));
    log(entry(logLevel.DEBUG, 'details'));

    expect(lines.map(({ level, msg }) => [level, msg])).toEqual([[40, 'a warning']]);
  });

  it('When kafkajs warns that an idempotent producer has bounded retries, then nothing is written', () => {
    const { log, lines } = kafkaLogOf('gateway');

    log(
      entry(
        logLevel.WARN,
        'Limiting retries for the idempotent producer may invalidate EoS guarantees',
      ),
    );
    log(entry(logLevel.WARN, 'Limiting retries for the consumer'));

    expect(lines.map(({ msg }) => msg)).toEqual(['Limiting retries for the consumer']);
  });
});
