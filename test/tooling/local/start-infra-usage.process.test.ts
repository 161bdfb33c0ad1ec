import { describe, expect, it } from 'vitest';
import { runScript } from '#test/support/processes/entry-point.ts';
import { USAGE as INFRA_USAGE } from '#local/infra-main.ts';
import { USAGE as START_USAGE } from '#local/start-main.ts';

const run = (script: string, ...args: string[]) => runScript(`deploy/local/${script}`, args);

describe('npm start and npm run infra with a refused flag or --help', () => {
  it.each([
    [
      'start.ts',
      ['--brokers', '2'],
      '--brokers takes 1 (one node) or 3 (a replicated cluster), got "2"',
      START_USAGE,
    ],
    ['start.ts', ['--kafka-port', '9092'], "Unknown option '--kafka-port'", START_USAGE],
    [
      'infra.ts',
      ['--kafka-port', '0'],
      '--kafka-port must be a port number (1–65535), got "0"',
      INFRA_USAGE,
    ],
    [
      'infra.ts',
      ['--brokers', '3', '--kafka-port', '29092', '--kafka-controller-port', '29094'],
      'Port 29094 would be used twice.',
      INFRA_USAGE,
    ],
  ])(
    'When %s is given %j, then it exits 2 before starting anything, with the error and the usage',
    (script, args, error, usage) => {
      const result = run(script, ...args);

      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.startsWith(error)).toBe(true);
      expect(result.stderr.endsWith(`\n\n${usage}\n`)).toBe(true);
    },
  );

  it.each([
    ['start.ts', START_USAGE],
    ['infra.ts', INFRA_USAGE],
  ])('When %s is given --help, then it prints the usage and exits 0', (script, usage) => {
    const result = run(script, '--help');

    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${usage}\n`);
  });
});
