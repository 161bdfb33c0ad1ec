import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  connectionCap,
  descriptorLimit,
  logConnectionCap,
  openFilesLimitOf,
  type ConnectionCap,
} from '#shared/http/limits.ts';
import { createLogger } from '#shared/logger.ts';

const KiB = 1_024;
const MiB = 1_024 * KiB;
const GiB = 1_024 * MiB;
/** A body limit like the gateway's default. */
const BODY_LIMIT = 16 * KiB;
/** What one connection is reckoned to hold besides its body. */
const OVERHEAD = 32 * KiB;
/** A heap so large that the descriptors bound the cap. */
const HUGE_HEAP = 1_024 * GiB;

/** /proc/self/limits as Linux prints it, with `open` as the soft and hard open-files limits. */
function procLimits(open: [string, string] | undefined): string {
  const row = (name: string, soft: string, hard: string, units = '') =>
    `${name.padEnd(26)}${soft.padEnd(21)}${hard.padEnd(21)}${units.padEnd(10)}`;
  return [
    row('Limit', 'Soft Limit', 'Hard Limit', 'Units'),
    row('Max cpu time', 'unlimited', 'unlimited', 'seconds'),
    row('Max file size', 'unlimited', 'unlimited', 'bytes'),
    row('Max processes', '63432', '63432', 'processes'),
    ...(open === undefined ? [] : [row('Max open files', ...open, 'files')]),
    row('Max locked memory', '8388608', '8388608', 'bytes'),
    row('Max msgqueue size', '819200', '819200', 'bytes'),
    row('Max realtime timeout', 'unlimited', 'unlimited', 'us'),
    '',
  ].join('\n');
}

/** A pino logger writing to memory: each line parsed. */
function recordingLogger() {
  const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
  const logger = createLogger('gateway', 'info', {
    write: (line: string) => {
      lines.push(JSON.parse(line) as (typeof lines)[number]);
    },
  });
  return { logger, lines };
}

const INFO = 30;
const WARN = 40;

describe('The connection cap of an HTTP port', () => {
  it('When MAX_CONNECTIONS is set, then it is the cap, whatever the budgets, and says so', () => {
    const budget = { descriptorLimit: 1_024, heapLimitBytes: 64 * MiB };

    expect(connectionCap(5, BODY_LIMIT, budget)).toEqual({
      maxConnections: 5,
      from: 'MAX_CONNECTIONS',
      descriptorLimit: 1_024,
      heapLimitBytes: 64 * MiB,
    });
    expect(connectionCap(100_000, BODY_LIMIT, budget)).toMatchObject({
      maxConnections: 100_000,
      from: 'MAX_CONNECTIONS',
    });
  });

  it.each([
    [20_000, 18_000, 'a tenth'],
    [1_024, 768, 'at least 256'],
    [512, 256, 'at least 256, which is half'],
    [300, 150, 'at most half'],
  ])(
    'When the descriptor limit is %i and memory is plenty, then the cap is %i: the limit less a reserve of %s',
    (limit, cap) => {
      expect(
        connectionCap(undefined, BODY_LIMIT, { descriptorLimit: limit, heapLimitBytes: HUGE_HEAP }),
      ).toEqual({
        maxConnections: cap,
        from: 'descriptors',
        descriptorLimit: limit,
        heapLimitBytes: HUGE_HEAP,
      });
    },
  );

  it('When the heap is the tighter budget, then the cap is half the heap limit over a body and a head per connection', () => {
    const heapLimitBytes = 64 * MiB;

    const cap = connectionCap(undefined, BODY_LIMIT, { descriptorLimit: 20_000, heapLimitBytes });

    expect(cap).toEqual({
      maxConnections: Math.floor(heapLimitBytes / 2 / (BODY_LIMIT + OVERHEAD)),
      from: 'memory',
      descriptorLimit: 20_000,
      heapLimitBytes,
    });
    expect(cap.maxConnections).toBe(682);
  });

  it('When there is no body (the writer’s port), then each connection is reckoned at its head alone', () => {
    expect(
      connectionCap(undefined, 0, { descriptorLimit: 20_000, heapLimitBytes: 64 * MiB }),
    ).toMatchObject({ maxConnections: 1_024, from: 'memory' });
  });

  it('When the descriptor limit is unknown, then the descriptor budget is 4,096', () => {
    expect(
      connectionCap(undefined, BODY_LIMIT, {
        descriptorLimit: undefined,
        heapLimitBytes: HUGE_HEAP,
      }),
    ).toEqual({
      maxConnections: 4_096,
      from: 'descriptors',
      descriptorLimit: undefined,
      heapLimitBytes: HUGE_HEAP,
    });
    expect(
      connectionCap(undefined, BODY_LIMIT, {
        descriptorLimit: undefined,
        heapLimitBytes: 64 * MiB,
      }),
    ).toMatchObject({ maxConnections: 682, from: 'memory' });
  });

  it.each([
    ['the heap cannot hold one connection', { descriptorLimit: 20_000, heapLimitBytes: 1_000 }],
    ['the descriptor limit is 1', { descriptorLimit: 1, heapLimitBytes: HUGE_HEAP }],
    ['the descriptor limit is 0', { descriptorLimit: 0, heapLimitBytes: HUGE_HEAP }],
  ])('When %s, then the cap is still 1', (_when, budget) => {
    expect(connectionCap(undefined, BODY_LIMIT, budget).maxConnections).toBe(1);
  });

  it('When no budget is given, then the process’s own descriptor limit and heap limit are used', () => {
    const cap = connectionCap(undefined, BODY_LIMIT);

    expect(cap.descriptorLimit).toBe(descriptorLimit());
    expect(cap.heapLimitBytes).toBe(getHeapStatistics().heap_size_limit);
    expect(cap).toEqual(
      connectionCap(undefined, BODY_LIMIT, {
        descriptorLimit: cap.descriptorLimit,
        heapLimitBytes: cap.heapLimitBytes,
      }),
    );
  });
});

describe('The descriptor limit', () => {
  it('When /proc/self/limits gives a soft and a hard limit on open files, then the soft one is read', () => {
    expect(openFilesLimitOf(procLimits(['1024', '4096']))).toBe(1_024);
    expect(openFilesLimitOf(procLimits(['20000', '20000']))).toBe(20_000);
  });

  it('When the limit on open files is unlimited, then it is unknown', () => {
    expect(openFilesLimitOf(procLimits(['unlimited', 'unlimited']))).toBeUndefined();
  });

  it('When there is no row for open files, or no text, then it is unknown', () => {
    expect(openFilesLimitOf(procLimits(undefined))).toBeUndefined();
    expect(openFilesLimitOf('')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')(
    'When the process runs on Linux, then its limit is the soft limit /proc/self/limits shows for it',
    () => {
      const row = /^Max open files\s+(\d+)\s/m.exec(readFileSync('/proc/self/limits', 'utf8'));

      expect(row?.[1]).toBeDefined();
      expect(descriptorLimit()).toBe(Number(row?.[1]));
    },
  );
});

describe('The start-up line about the connection cap', () => {
  const cap = (maxConnections: number, descriptorLimit: number | undefined): ConnectionCap => ({
    maxConnections,
    from: 'MAX_CONNECTIONS',
    descriptorLimit,
    heapLimitBytes: 64 * MiB,
  });

  it('When the cap is derived, then it is logged at info with where it came from', () => {
    const { logger, lines } = recordingLogger();
    const derived = connectionCap(undefined, BODY_LIMIT, {
      descriptorLimit: 20_000,
      heapLimitBytes: HUGE_HEAP,
    });

    logConnectionCap(derived, logger);

    expect(lines).toEqual([
      expect.objectContaining({
        level: INFO,
        msg: 'HTTP connections capped',
        maxConnections: 18_000,
        from: 'descriptors',
        descriptorLimit: 20_000,
      }),
    ]);
  });

  it('When MAX_CONNECTIONS leaves 64 descriptors of the limit, then it is logged at info', () => {
    const { logger, lines } = recordingLogger();

    logConnectionCap(cap(20_000 - 64, 20_000), logger);

    expect(lines).toEqual([
      expect.objectContaining({ level: INFO, msg: 'HTTP connections capped' }),
    ]);
  });

  it('When a tiny descriptor limit leaves a derived cap within 64 of it, then the line is the usual one: nobody set MAX_CONNECTIONS', () => {
    const { logger, lines } = recordingLogger();

    logConnectionCap(
      connectionCap(undefined, BODY_LIMIT, { descriptorLimit: 100, heapLimitBytes: GiB }),
      logger,
    );

    expect(lines).toEqual([
      expect.objectContaining({ level: INFO, msg: 'HTTP connections capped', maxConnections: 50 }),
    ]);
  });

  it('When MAX_CONNECTIONS leaves fewer than 64 descriptors of the limit, then a warning names it', () => {
    const { logger, lines } = recordingLogger();

    logConnectionCap(cap(20_000 - 63, 20_000), logger);

    expect(lines).toEqual([
      expect.objectContaining({
        level: WARN,
        msg: expect.stringContaining('MAX_CONNECTIONS') as unknown,
        maxConnections: 19_937,
        from: 'MAX_CONNECTIONS',
        descriptorLimit: 20_000,
      }),
    ]);
    expect(lines[0]?.msg).toContain('fewer than 64');
  });

  it('When MAX_CONNECTIONS is above the descriptor limit, then a warning names it', () => {
    const { logger, lines } = recordingLogger();

    logConnectionCap(cap(100_000, 1_024), logger);

    expect(lines.map(({ level }) => level)).toEqual([WARN]);
  });

  it('When the descriptor limit is unknown, then any cap is logged at info', () => {
    const { logger, lines } = recordingLogger();

    logConnectionCap(cap(100_000, undefined), logger);

    expect(lines).toEqual([
      expect.objectContaining({ level: INFO, msg: 'HTTP connections capped' }),
    ]);
  });
});
