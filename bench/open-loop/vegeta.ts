import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { provisionOnce } from '#local/provision/provision-cache.ts';
import { GO_PACKAGES_COMPILED, runLogged } from '#local/process/run-logged.ts';
import { GO, requireTools, type Tool } from '#local/provision/tools.ts';
import { plantBody } from '../closed-loop/load.ts';
import { reapedChildrenCpuSeconds } from '../probes/process-stats.ts';

const VEGETA_VERSION = 'v12.13.0';
const VEGETA_CACHE_NAME = `vegeta-${VEGETA_VERSION}`;
const MODULE = 'github.com/tsenart/vegeta/v12';

const VEGETA_BUILD: Tool = {
  ...GO,
  neededFor: 'building vegeta, the open-loop load of --rates and --capacity (once, then cached)',
};

/** Builds vegeta once per machine (`go install`); returns its binary. */
export async function provisionVegeta(cache: string, logFile: string): Promise<string> {
  requireTools([VEGETA_BUILD]);
  const home = await provisionOnce(cache, VEGETA_CACHE_NAME, async (dir) => {
    await runLogged('go', ['install', '-v', '-trimpath', `${MODULE}@${VEGETA_VERSION}`], {
      cwd: dir,
      logFile,
      env: { ...process.env, GOBIN: dir },
      progress: {
        step: `building vegeta ${VEGETA_VERSION}, the open-loop load generator (Go: a minute the first time)`,
        counts: GO_PACKAGES_COMPILED,
      },
    });
  });
  return join(home, 'vegeta');
}

export interface AttackOptions {
  vegeta: string;
  /** Gateways, taken in turn. */
  urls: readonly string[];
  token: string;
  rate: number;
  seconds: number;
  /** Every request creates a new plant: ids count up from here. */
  firstId: bigint;
  /** Where the targets are written. */
  dir: string;
}

/** One request as vegeta recorded it. */
export interface Hit {
  /** Sequence number in the order of sending, from 0. */
  seq: number;
  /** When it was sent, in ns since the epoch. */
  sentNs: bigint;
  latencyMs: number;
  /** 0 when no answer came (vegeta's error is in `error`). */
  code: number;
  error: string;
}

export interface Attack {
  hits: Hit[];
  /** CPU vegeta spent attacking and encoding its results, in seconds: it shares the cores. */
  generatorCpuSeconds: number;
}

/**
 * Sends `rate` creates a second for `seconds` at a steady pace, however slowly they are answered
 * (vegeta adds workers and connections as needed), each a plant never created. `onHit` sees each
 * result as it comes.
 */
export async function attack(
  options: AttackOptions,
  onHit: (hit: Hit) => void = () => undefined,
): Promise<Attack> {
  const { rate, seconds, dir } = options;
  const targets = join(dir, `targets-${String(rate)}.jsonl`);
  // One spare second: vegeta loops over its targets when they run out, which would send repeats.
  await writeTargets(targets, options, rate * (seconds + 1));
  try {
    return await attackWith(targets, options, onHit);
  } finally {
    await rm(targets, { force: true });
  }
}

async function attackWith(
  targets: string,
  { vegeta, rate, seconds }: AttackOptions,
  onHit: (hit: Hit) => void,
): Promise<Attack> {
  // vegeta's CPU is counted once it has been waited for, among this process's children's.
  const before = reapedChildrenCpuSeconds(process.pid);
  const attacker = spawn(
    vegeta,
    [
      'attack',
      '-format=json',
      `-targets=${targets}`,
      `-rate=${String(rate)}/1s`,
      `-duration=${String(seconds)}s`,
      '-timeout=30s',
      '-max-body=0',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const encoder = spawn(vegeta, ['encode', '-to=csv'], {
    stdio: [attacker.stdout, 'pipe', 'pipe'],
  });
  // Either failing stops both: an attack whose encoder died would block on its full pipe.
  const stopBoth = () => {
    attacker.kill();
    encoder.kill();
  };
  const hits: Hit[] = [];
  let unreadable: string | undefined;
  const lines = createInterface({ input: encoder.stdout });
  const read = once(lines, 'close');
  lines.on('line', (line) => {
    const hit = unreadable === undefined ? parseResult(line) : null;
    if (hit === null) {
      unreadable ??= line;
      stopBoth();
      return;
    }
    hits.push(hit);
    onHit(hit);
  });
  const failedIf = async (exit: Promise<string>) => {
    const failure = await exit;
    if (failure !== '') stopBoth();
    return failure;
  };
  const [attacked, encoded] = await Promise.all([
    failedIf(exitOf(attacker)),
    failedIf(exitOf(encoder)),
  ]);
  await read;
  if (unreadable !== undefined)
    throw new Error(`vegeta wrote a result line not understood: ${unreadable}`);
  if (attacked !== '') throw new Error(`vegeta attack failed: ${attacked}`);
  if (encoded !== '') throw new Error(`vegeta encode failed: ${encoded}`);
  return { hits, generatorCpuSeconds: reapedChildrenCpuSeconds(process.pid) - before };
}

/** '' when the process exited 0, else its exit and what it wrote to stderr. */
async function exitOf(child: ChildProcess): Promise<string> {
  const stderr: Buffer[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return code === 0 ? '' : `exit ${String(code)}: ${Buffer.concat(stderr).toString().trim()}`;
}

async function writeTargets(
  file: string,
  { urls, token, firstId }: AttackOptions,
  count: number,
): Promise<void> {
  const out = createWriteStream(file);
  const header = JSON.stringify({
    Authorization: [`Bearer ${token}`],
    'Content-Type': ['application/json'],
  });
  for (let index = 0; index < count; index++) {
    const body = Buffer.from(plantBody(firstId + BigInt(index))).toString('base64');
    const url = `${urls[index % urls.length] ?? ''}/plants`;
    const line = `{"method":"POST","url":"${url}","body":"${body}","header":${header}}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
}

/**
 * One line of vegeta's CSV: timestamp ns, code, latency ns, bytes out, bytes in, error, body,
 * attack name, seq, method, URL, headers. The error is the only field that may hold commas or
 * quotes, so the fields before it are cut from the front and the six after it from the back.
 * Null for a line that is not one.
 */
export function parseResult(line: string): Hit | null {
  const front = line.split(',', 5);
  const back = line.split(',').slice(-6);
  const numbers = [front[0], front[1], front[2], back[2]];
  if (back.length < 6 || !numbers.every((field) => field !== undefined && /^\d+$/.test(field)))
    return null;
  const error = line
    .slice(front.join(',').length + 1, line.length - back.join(',').length - 1)
    .replace(/^"(.*)"$/s, '$1')
    .replaceAll('""', '"');
  const [timestamp = '0', code = '0', latency = '0'] = front;
  return {
    seq: Number(back[2] ?? 0),
    sentNs: BigInt(timestamp),
    latencyMs: Number(latency) / 1e6,
    code: Number(code),
    error,
  };
}
