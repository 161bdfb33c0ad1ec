import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { provisionOnce } from '../provision/provision-cache.ts';
import { GO_PACKAGES_COMPILED, runLogged } from '../process/run-logged.ts';
import { GO, requireTools, type Tool } from '../provision/tools.ts';
import { parseResult, type Hit } from './vegeta-results.ts';

const VEGETA_VERSION = 'v12.13.0';
const VEGETA_CACHE_NAME = `vegeta-${VEGETA_VERSION}`;
const MODULE = 'github.com/tsenart/vegeta/v12';

const VEGETA_BUILD: Tool = {
  ...GO,
  neededFor:
    'building vegeta, the open-loop load of the bench and of the overload scenario (once, then cached)',
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
  /** Requests a second; 0: each of `workers` sends its next as soon as the last is answered. */
  rate: number;
  seconds: number;
  /** Every request creates a new plant: ids count up from here. */
  firstId: bigint;
  /** The body of the request for `id`. */
  bodyOf: (id: bigint) => string;
  /**
   * Each target's URL ends with `#<id>` (`Hit.id`): vegeta numbers its results in the order it
   * sends them, which is not always the order of the targets, and a fragment is never sent.
   */
  tagged?: boolean;
  /** Where the targets are written. */
  dir: string;
  /** The closed loop's senders (with `rate` 0). */
  workers?: number;
  /** Connections to each gateway at most: below its connection cap, or refusals are the cap's. */
  maxConnections?: number;
  /** Keep each answer's body (`Hit.body`); by default none is read. */
  bodies?: boolean;
  /**
   * The nice value the attack runs at: below 0 (root only) it keeps its schedule on cores the
   * services saturate. Undefined: the caller's.
   */
  priority?: number;
  /** The CPUs vegeta runs on (`taskset -c`); undefined: any. */
  cpus?: string;
}

/**
 * An attack whose targets are written: `run` sends them and keeps vegeta's results in a file,
 * `read` encodes and reads them, then removes both files. Apart, several attacks run back to back
 * and only the sending shares the cores with the services meanwhile.
 */
export interface PreparedAttack {
  run(): Promise<void>;
  read(onHit?: (hit: Hit) => void): Promise<Hit[]>;
}

/**
 * Sends `rate` creates a second for `seconds` at a steady pace, however slowly they are answered
 * (vegeta adds workers and connections as needed), each a plant never created. `onHit` sees each
 * result as it comes. The CPU vegeta spends is counted among this process's reaped children once
 * it resolves.
 */
export async function attack(
  options: AttackOptions,
  onHit: (hit: Hit) => void = () => undefined,
): Promise<Hit[]> {
  const targets = await targetsOf(options);
  try {
    return await attackWith(targets, options, onHit);
  } finally {
    await rm(targets, { force: true });
  }
}

export async function prepareAttack(options: AttackOptions): Promise<PreparedAttack> {
  const targets = await targetsOf(options);
  const results = `${targets}.results`;
  const removeFiles = async () => {
    await rm(targets, { force: true });
    await rm(results, { force: true });
  };
  return {
    async run() {
      const attacked = await exitOf(attacker(targets, options, results));
      if (attacked === '') return;
      await removeFiles();
      throw new Error(`vegeta attack failed: ${attacked}`);
    },
    async read(onHit = () => undefined) {
      try {
        return await encoded(spawn(options.vegeta, ['encode', '-to=csv', results]), onHit);
      } finally {
        await removeFiles();
      }
    },
  };
}

async function targetsOf(options: AttackOptions): Promise<string> {
  const { rate, seconds, dir } = options;
  const targets = join(dir, `targets-${String(rate)}-${String(options.firstId)}.jsonl`);
  // One spare second: vegeta loops over its targets when they run out, which would send repeats.
  // A closed loop's workers answered within 10 ms send at most a hundred a second each; beyond
  // that it sends repeats, which a create answers as it did the first time.
  const count = rate > 0 ? rate * (seconds + 1) : (options.workers ?? 1) * 100 * (seconds + 1);
  await writeTargets(targets, options, count);
  return targets;
}

function attacker(targets: string, options: AttackOptions, output?: string): ChildProcess {
  const { vegeta, rate, seconds, workers, maxConnections, bodies = false, priority } = options;
  const command = options.cpus === undefined ? vegeta : 'taskset';
  const pinned = options.cpus === undefined ? [] : ['-c', options.cpus, vegeta];
  const child = spawn(
    command,
    [
      ...pinned,
      'attack',
      '-format=json',
      `-targets=${targets}`,
      `-rate=${String(rate)}/1s`,
      ...(rate === 0
        ? [`-workers=${String(workers ?? 1)}`, `-max-workers=${String(workers ?? 1)}`]
        : []),
      ...(maxConnections === undefined ? [] : [`-max-connections=${String(maxConnections)}`]),
      `-duration=${String(seconds)}s`,
      '-timeout=30s',
      `-max-body=${bodies ? '-1' : '0'}`,
      ...(output === undefined ? [] : [`-output=${output}`]),
    ],
    { stdio: ['ignore', output === undefined ? 'pipe' : 'ignore', 'pipe'] },
  );
  if (priority !== undefined && child.pid !== undefined) setPriority(child.pid, priority);
  return child;
}

async function attackWith(
  targets: string,
  options: AttackOptions,
  onHit: (hit: Hit) => void,
): Promise<Hit[]> {
  const sender = attacker(targets, options);
  const encoder = spawn(options.vegeta, ['encode', '-to=csv'], {
    stdio: [sender.stdout, 'pipe', 'pipe'],
  });
  // Either failing stops both: an attack whose encoder died would block on its full pipe.
  const attacked = exitOf(sender).then((failure) => {
    if (failure !== '') encoder.kill();
    return failure;
  });
  const [failure, read] = await Promise.all([
    attacked,
    encoded(encoder, onHit, () => sender.kill()).then(
      (hits) => ({ hits }),
      (error: unknown) => ({ error }),
    ),
  ]);
  if (failure !== '') throw new Error(`vegeta attack failed: ${failure}`);
  if ('error' in read) throw read.error;
  return read.hits;
}

/** The results `encoder` writes as CSV, each passed to `onHit` as it is read. */
async function encoded(
  encoder: ChildProcess,
  onHit: (hit: Hit) => void,
  onFailure: () => void = () => undefined,
): Promise<Hit[]> {
  const stopBoth = () => {
    onFailure();
    encoder.kill();
  };
  const hits: Hit[] = [];
  let unreadable: string | undefined;
  if (encoder.stdout === null) throw new Error('vegeta encode has no output');
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
  const failure = await exitOf(encoder);
  if (failure !== '') stopBoth();
  await read;
  if (unreadable !== undefined)
    throw new Error(`vegeta wrote a result line not understood: ${unreadable}`);
  if (failure !== '') throw new Error(`vegeta encode failed: ${failure}`);
  return hits;
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
  { urls, token, firstId, bodyOf, tagged = false }: AttackOptions,
  count: number,
): Promise<void> {
  const out = createWriteStream(file);
  const header = JSON.stringify({
    Authorization: [`Bearer ${token}`],
    'Content-Type': ['application/json'],
  });
  for (let index = 0; index < count; index++) {
    const id = firstId + BigInt(index);
    const body = Buffer.from(bodyOf(id)).toString('base64');
    const url = `${urls[index % urls.length] ?? ''}/plants${tagged ? `#${String(id)}` : ''}`;
    const line = `{"method":"POST","url":"${url}","body":"${body}","header":${header}}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
}
