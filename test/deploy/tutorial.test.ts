import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { MongoClient } from 'mongodb';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { freePort } from '#local/provision/ports.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { watchOutput, type ChildOutput } from '../support/processes/child-output.ts';
import { olderNodeDirectory } from '../support/processes/older-node.ts';
import { descendantPids, isAlive } from '../support/servers/infra-process.ts';
import { temporaryDirectory } from '../support/servers/local-servers.ts';
import { ownKafka } from '../support/servers/own-kafka.ts';

/**
 * docs/tutorial.md marks each block a step runs with `<!-- tutorial-step: <name> -->` on the line
 * before its fence; these are the names, in the page's order, with each block's info string.
 */
const STEPS = {
  start: 'sh',
  'start-output': 'text',
  session: 'sh',
  'http-create': 'sh',
  'http-conflict': 'sh',
  'producer-script': 'js',
  'producer-run': 'sh',
  'second-writer': 'sh',
  partitions: 'sh',
  'partitions-output': 'text',
  'gateway-metrics': 'sh',
  'writer-metrics': 'sh',
} as const;
type Step = keyof typeof STEPS;

const MARKER = /^<!-- tutorial-step: (\S+) -->$/;
const FENCE = /^(`{3,})(\S*)$/;

interface Block {
  info: string;
  text: string;
}

/** The fenced block after each marker line, by step name, in the page's order. */
function markedBlocks(markdown: string): Map<string, Block> {
  const lines = markdown.split('\n');
  const blocks = new Map<string, Block>();
  lines.forEach((line, index) => {
    const name = MARKER.exec(line)?.[1];
    if (name === undefined) return;
    let start = index + 1;
    while (lines[start]?.trim() === '') start += 1;
    const [, fence, info = ''] = FENCE.exec(lines[start] ?? '') ?? [];
    const end = fence === undefined ? -1 : lines.indexOf(fence, start + 1);
    if (end === -1) throw new Error(`line ${String(index + 1)}: no fenced block after ${name}`);
    if (blocks.has(name)) throw new Error(`line ${String(index + 1)}: ${name} marked twice`);
    blocks.set(name, { info, text: lines.slice(start + 1, end).join('\n') });
  });
  return blocks;
}

function tutorial(): Map<string, Block> {
  return markedBlocks(readFileSync(join(projectRoot, 'docs', 'tutorial.md'), 'utf8'));
}

function block(blocks: Map<string, Block>, step: Step): Block {
  const found = blocks.get(step);
  if (found === undefined) throw new Error(`docs/tutorial.md marks no ${step} block`);
  return found;
}

interface Command {
  line: string;
  /** The `# ` lines after it: what it prints. */
  output: string[];
}

/** A shell block's commands, continued lines kept together, each with the output shown after it. */
function commandsOf({ text }: Block): Command[] {
  const commands: Command[] = [];
  let continued = false;
  for (const line of text.split('\n')) {
    const last = commands.at(-1);
    if (continued && last !== undefined) last.line += `\n${line}`;
    else if (line.startsWith('# ') && last !== undefined) last.output.push(line.slice(2));
    else if (line.trim() !== '') commands.push({ line, output: [] });
    continued = line.endsWith('\\');
  }
  return commands;
}

/** What the reader puts in for the placeholders and the usual ports, on this run's servers. */
interface Fill {
  port: number;
  token: string;
  writerMetrics: string;
  brokers: string;
  mongoUri: string;
  secondWriterPort: number;
}

function asTheReader(text: string, fill: Fill): string {
  return text
    .replaceAll('<the printed token>', fill.token)
    .replaceAll("<the writer's metrics URL>", fill.writerMetrics)
    .replaceAll('127.0.0.1:3000', `127.0.0.1:${String(fill.port)}`)
    .replaceAll('127.0.0.1:9092', fill.brokers)
    .replaceAll("'mongodb://127.0.0.1:27017/?directConnection=true'", shellQuoted(fill.mongoUri))
    .replaceAll('9465', String(fill.secondWriterPort));
}

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

const scripts = packageJson.scripts as Record<string, string>;

/** `npm start` and `npm run <name>` as the line npm runs: the exit status is then the script's. */
function asNpmRunsIt(command: string): string {
  return command.replace(
    /\bnpm (?:start|run ([\w:-]+))/,
    (_, name?: string) => scripts[name ?? 'start'] ?? `no-such-script-${String(name)}`,
  );
}

/** The lines a command printed on its standard output, as the reader's shell runs it. */
function run(command: string, { cwd = projectRoot, env = process.env } = {}): string[] {
  const result = spawnSync('bash', ['-c', command], { cwd, env, encoding: 'utf8' });
  expect(result.stderr, command).not.toMatch(/command not found|No such file/);
  return result.stdout.split('\n').filter((line) => line !== '');
}

interface Terminal extends ChildOutput {
  /** Ctrl-C: SIGINT to the terminal's foreground process group. */
  ctrlC(): void;
  /** Every process below the terminal's command now. */
  processes(): number[];
}

/** A command that runs until Ctrl-C in a terminal of its own, killed when the test ends. */
function inATerminal(command: string, env: NodeJS.ProcessEnv, name: string): Terminal {
  const child = spawn('bash', ['-c', command], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid ?? 0;
  onTestFinished(() => {
    for (const each of [...descendantPids(pid), pid])
      if (isAlive(each)) process.kill(each, 'SIGKILL');
  });
  return {
    ...watchOutput(child, name),
    ctrlC: () => process.kill(-pid, 'SIGINT'),
    processes: () => descendantPids(pid),
  };
}

/** Each line shown, `…` standing for any text, is a line printed, in the order shown. */
function shownLinesMissing(shown: string, printed: string): string[] {
  const lines = printed.split('\n');
  let from = 0;
  return shown.split('\n').flatMap((line) => {
    const pattern = new RegExp(
      `^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('…', '.+')}$`,
    );
    const at = lines.findIndex((printedLine, index) => index >= from && pattern.test(printedLine));
    if (at === -1) return [line];
    from = at + 1;
    return [];
  });
}

/** The tutorial's blocks, what the reader filled in, and the reader's second terminal. */
interface Walk {
  blocks: Map<string, Block>;
  fill: Fill;
  env: NodeJS.ProcessEnv;
}

interface ShellStep {
  /** Runs the command after the session block's lines, as in the reader's second terminal. */
  lines: () => string[];
  output: string[];
}

function shellStep({ blocks, fill, env }: Walk, step: Step): ShellStep[] {
  const session = asTheReader(block(blocks, 'session').text, fill);
  return commandsOf(block(blocks, step)).map(({ line, output }) => ({
    lines: () => run(`${session}\n${asTheReader(line, fill)}`, { env }),
    output,
  }));
}

function expectTheOutputShown(walk: Walk, step: Step): void {
  for (const { lines, output } of shellStep(walk, step)) expect(lines(), step).toEqual(output);
}

/**
 * Step 1: `npm start` on a Kafka of this test's own (the tutorial's topics and group are the
 * defaults, which another test's `npm start` would share) and the run's store, in a database of
 * its own. Resolves once it printed what the tutorial shows.
 */
async function startTheStore(blocks: Map<string, Block>) {
  const kafka = await ownKafka();
  const mongoUri = inject('mongoUri');
  const port = await freePort();
  const database = `test-tutorial-${String(port)}`;
  onTestFinished(async () => {
    const client = new MongoClient(mongoUri);
    await client.db(database).dropDatabase();
    await client.close();
  });
  const env = { ...process.env, MONGODB_DATABASE: database };
  const store = inATerminal(
    `${asNpmRunsIt(block(blocks, 'start').text)} --dir ${await temporaryDirectory()}`,
    {
      ...env,
      PORT: String(port),
      KAFKA_BROKERS: kafka.brokers,
      MONGODB_URI: mongoUri,
      AUTH_TOKENS: '',
    },
    'npm start',
  );
  await store.printed('Ctrl-C stops everything.');
  const shown = block(blocks, 'start-output').text.replaceAll(
    '127.0.0.1:3000',
    `127.0.0.1:${String(port)}`,
  );
  expect(shownLinesMissing(shown, store.output())).toEqual([]);
  const fill: Fill = {
    port,
    token: /Development token: (\S+)/.exec(store.output())?.[1] ?? '',
    writerMetrics: /, (\S+) \(writer\)/.exec(store.output())?.[1] ?? '',
    brokers: kafka.brokers,
    mongoUri,
    secondWriterPort: await freePort(),
  };
  return { store, walk: { blocks, fill, env } };
}

/** Step 3: the reader's script, saved beside a node_modules and run with an older `node`. */
async function runTheProducer({ blocks, fill, env }: Walk): Promise<void> {
  const [producerRun] = commandsOf(block(blocks, 'producer-run'));
  const command = producerRun?.line ?? '';
  const scriptName = /^node (\S+)$/.exec(command)?.[1] ?? 'no script named';
  const folder = await temporaryDirectory();
  writeFileSync(join(folder, scriptName), asTheReader(block(blocks, 'producer-script').text, fill));
  symlinkSync(join(projectRoot, 'node_modules'), join(folder, 'node_modules'));
  const path = [olderNodeDirectory(), process.env.PATH ?? ''].join(delimiter);

  expect(run(command, { cwd: folder, env: { ...env, PATH: path } })).toEqual(producerRun?.output);
}

/** Step 4: a second writer, and what both writers' lag lines name once the group settled. */
async function startASecondWriter(walk: Walk): Promise<Terminal> {
  const command = asNpmRunsIt(asTheReader(block(walk.blocks, 'second-writer').text, walk.fill));
  const writer = inATerminal(command, walk.env, 'the second writer');
  await writer.printed('writer health and metrics listening');
  const [first, second] = shellStep(walk, 'partitions').map(({ lines }) => lines);
  const shares = () => {
    const [owned, others] = [first?.() ?? [], second?.() ?? []];
    return { lines: [...owned, ...others].sort(), each: owned.length > 0 && others.length > 0 };
  };

  await expect
    .poll(shares, { timeout: 30_000 })
    .toEqual({ lines: exampleLagLines(walk), each: true });
  return writer;
}

function exampleLagLines({ blocks }: Walk): string[] {
  return block(blocks, 'partitions-output').text.split('\n').sort();
}

describe('docs/tutorial.md', () => {
  it('When the page is read, then every step is marked once, in order, on a block the test can run with no placeholder left over', () => {
    const blocks = tutorial();
    const fill = {
      port: 1,
      token: 'dev-token',
      writerMetrics: 'http://127.0.0.1:2/metrics',
      brokers: '127.0.0.1:3',
      mongoUri: 'mongodb://127.0.0.1:4/?directConnection=true',
      secondWriterPort: 5,
    };
    const shell = Object.entries(STEPS).filter(([, info]) => info === 'sh');

    expect([...blocks.keys()]).toEqual(Object.keys(STEPS));
    expect(Object.fromEntries([...blocks].map(([name, { info }]) => [name, info]))).toEqual(STEPS);
    expect(block(blocks, 'start').text).toBe('npm start');
    expect(
      shell.flatMap(([name]) =>
        commandsOf(block(blocks, name as Step)).flatMap(({ line }) =>
          /<[^>]+>/.test(asTheReader(line, fill)) ? [`${name}: ${line}`] : [],
        ),
      ),
    ).toEqual([]);
    expect(
      (
        [
          'http-create',
          'http-conflict',
          'producer-run',
          'gateway-metrics',
          'writer-metrics',
        ] as const
      )
        .flatMap((name) => commandsOf(block(blocks, name)))
        .filter(({ output }) => output.length === 0),
    ).toEqual([]);
    expect(asNpmRunsIt(block(blocks, 'second-writer').text)).toContain(
      'node scripts/run.mjs --service services/writer/src/main.ts',
    );
  });

  it('When a newcomer follows it, then npm start prints what it shows, HTTP and their own Kafka script answer as shown, two writers share the partitions, the metrics count the creates and Ctrl-C stops everything', async () => {
    const { store, walk } = await startTheStore(tutorial());
    const services = store.processes();

    // Step 2: a create, the same create again, and a conflict.
    for (const step of ['http-create', 'http-create', 'http-conflict'] as const) {
      expectTheOutputShown(walk, step);
    }
    await runTheProducer(walk);
    const secondWriter = await startASecondWriter(walk);
    // Step 5: the metrics, then Ctrl-C in the third terminal and in the first.
    expectTheOutputShown(walk, 'gateway-metrics');
    expectTheOutputShown(walk, 'writer-metrics');
    // "the same `grep` on its `/metrics` (port 9465) finds no line yet"
    for (const { line } of commandsOf(block(walk.blocks, 'writer-metrics'))) {
      const onTheSecond = line.replaceAll('$WRITER_METRICS', 'http://127.0.0.1:9465/metrics');
      expect(run(asTheReader(onTheSecond, walk.fill), { env: walk.env })).toEqual([]);
    }
    secondWriter.ctrlC();
    expect(await secondWriter.exited).toBe(0);
    const [firstWriterLag] = shellStep(walk, 'partitions');
    await expect.poll(() => firstWriterLag?.lines().sort()).toEqual(exampleLagLines(walk));
    store.ctrlC();
    expect(await store.exited).toBe(0);
    expect(store.output().match(/SIGINT: stopping/g)).toEqual(['SIGINT: stopping']);
    expect(services).toHaveLength(3);
    expect(services.filter(isAlive)).toEqual([]);
  }, 120_000);
});
