import { describe, expect, it } from 'vitest';
import { runScript } from '#test/support/processes/entry-point.ts';

const USAGE = 'usage: npm run dlq -- list|replay [--error CODE] [--since ISO-8601] [--yes]';

describe('npm run dlq with a refused command line', () => {
  // No Kafka to reach: a refused command line exits before any client is made.
  const dlq = (...args: string[]) =>
    runScript('services/writer/src/dlq/main.ts', args, { KAFKA_BROKERS: '127.0.0.1:1' });

  it.each([
    [['list', '--bogus'], "Unknown option '--bogus'"],
    [[], 'one action is needed, list or replay; got none'],
    [['purge'], 'one action is needed, list or replay; got "purge"'],
    [['list', '--error', 'x'], '--error takes an error code, a whole number; got "x"'],
    [['replay', '--since', 'yesterday'], '--since takes an ISO-8601 time; got "yesterday"'],
  ])(
    'When given %j, then it exits 2 with the error and the usage, before reaching Kafka',
    (args, error) => {
      const refused = dlq(...args);

      expect(refused.status).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.startsWith(error)).toBe(true);
      expect(refused.stderr.endsWith(`\n\n${USAGE}\n`)).toBe(true);
    },
  );
});
