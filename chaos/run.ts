// `npm run chaos`: the local stack with 3 writers and 2 gateways under load while writers are
// stopped (SIGTERM) and killed (SIGKILL) and the broker and the store restart; then every answer is
// checked against the store.
// Exits 1 on any lost plant, wrong or unexpected answer, unsettled request, or too few creates.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { stateRoot } from '../deploy/local/paths.ts';
import type { ServerProcess } from '../deploy/local/server-process.ts';
import { startServices, startWriterProcess } from '../deploy/local/services.ts';
import { serviceConnections } from '../deploy/local/secure-stack.ts';
import { startLocalStack } from '../deploy/local/stack.ts';
import { stopOnSignal } from '../deploy/local/stop-on-signal.ts';
import { waitUntilReady } from '../deploy/local/wait-until-ready.ts';
import { WRITER_GROUP } from '../shared/contracts/kafka.ts';
import { settle, startTraffic, type Answer } from './traffic.ts';
import { isOutage, verdict, type StoredPlant } from './verdict.ts';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '32' },
    'min-creates': { type: 'string', default: '20000' },
    'fault-every': { type: 'string', default: '15' },
    store: { type: 'string' },
    secure: { type: 'boolean', default: false },
  },
});
const connections = Number(values.connections);
const minCreates = Number(values['min-creates']);
const faultEveryMs = Number(values['fault-every']) * 1_000;
const store = values.store === 'sqlite' || values.store === 'postgresql' ? values.store : undefined;
const REPLY_TIMEOUT_MS = 5_000;
const WRITERS = 3;

const dir = join(stateRoot, 'chaos', new Date().toISOString().replaceAll(':', '-'));
const logDir = join(dir, 'logs');
const token = `chaos-${randomBytes(12).toString('base64url')}`;

console.log(
  `chaos: starting Kafka${values.secure ? ' (secured)' : ''} and the store (${store ?? 'default'}) in ${dir}…`,
);
const stack = await startLocalStack({ dir, store, secure: values.secure });
stopOnSignal('the chaos run', () => stack.stop());
const env = {
  ...process.env,
  AUTH_TOKENS: token,
  REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
  LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
};

interface Fault {
  name: string;
  at: number;
  /** When the server was back (restarted and ready). */
  restoredAt: number;
}

try {
  const serviceSettings = await serviceConnections(stack);
  const services = await startServices({
    env,
    connections: serviceSettings,
    logDir,
    writers: WRITERS,
    gateways: 2,
  });
  const writers: ServerProcess[] = [...services.writers];
  const trafficOptions = {
    urls: services.urls,
    token,
    connections,
    firstId: 9_007_199_254_740_993n,
    hangAfterMs: REPLY_TIMEOUT_MS + 10_000,
  };
  const traffic = startTraffic(trafficOptions);
  const loadStartedAt = Date.now();
  console.log(
    `chaos: ${String(connections)} clients on ${services.urls.join(', ')}; a fault every ${String(faultEveryMs / 1_000)} s`,
  );

  const faults: Fault[] = [];
  const inject = async (name: string, act: () => Promise<void>) => {
    await sleep(faultEveryMs);
    const at = Date.now();
    console.log(`chaos: +${seconds(at - loadStartedAt)} ${name}`);
    await act();
    faults.push({ name, at, restoredAt: Date.now() });
  };
  /** Stops a writer with `signal`, starts a new one, and waits until the group has all three. */
  const replaceWriter = async (index: number, signal: 'SIGTERM' | 'SIGKILL') => {
    const before = await writerGroup();
    writers[index]?.kill(signal);
    await writers[index]?.exited;
    const writer = startWriterProcess(`writer-${String(index + 1)}-${signal}`, {
      env,
      connections: serviceSettings,
      logDir,
    });
    writers[index] = writer;
    // Stable with three members again, one of them new: the old one left, or its session expired.
    await waitUntilReady(
      writer,
      async () => {
        const now = await writerGroup();
        if (!(
          now.stable &&
          now.members.length === WRITERS &&
          now.members.some((id) => !before.members.includes(id))
        )) {
          throw new Error('the group has not replaced the stopped writer yet');
        }
      },
      60_000,
    );
  };
  // A rolling deploy's step: the writer finishes its work, commits and leaves the group.
  await inject('SIGTERM writer-1, start a new one', () => replaceWriter(0, 'SIGTERM'));
  for (const index of [0, 1, 2]) {
    await inject(`SIGKILL writer-${String(index + 1)}, start a new one`, () =>
      replaceWriter(index, 'SIGKILL'),
    );
  }
  await inject('restart the broker', () => stack.restart('kafka'));
  await inject('restart the store', () => stack.restart('mongo'));
  await sleep(faultEveryMs);
  while (creates(traffic.answers) < minCreates) {
    console.log(`chaos: ${String(creates(traffic.answers))} creates so far…`);
    await sleep(5_000);
  }
  await traffic.stop();
  const loadSeconds = (Date.now() - loadStartedAt) / 1_000;

  const outages = traffic.answers.filter(isOutage);
  console.log(`chaos: load over; retrying ${String(outages.length)} requests answered 503/504…`);
  const retries = await settle(trafficOptions, outages);
  const answers = [...traffic.answers, ...retries];
  const findings = verdict(answers, await storedPlants(stack.mongoUri));

  report({ answers, faults, findings, loadSeconds, loadStartedAt });
  await Promise.all([...services.gateways, ...writers].map((service) => service.stop()));
  process.exitCode = findings.length > 0 || creates(traffic.answers) < minCreates ? 1 : 0;
} finally {
  await stack.stop();
}

async function writerGroup(): Promise<{ stable: boolean; members: string[] }> {
  const admin = new Kafka({ ...stack.kafka.admin, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const [group] = (await admin.describeGroups([WRITER_GROUP])).groups;
    return {
      stable: group?.state === 'Stable',
      members: (group?.members ?? []).map(({ memberId }) => memberId),
    };
  } finally {
    await admin.disconnect();
  }
}

function creates(answers: readonly Answer[]): number {
  return answers.length;
}

async function storedPlants(uri: string): Promise<Map<bigint, StoredPlant>> {
  const client = await new MongoClient(uri, { useBigInt64: true }).connect();
  try {
    const documents = await client
      .db('plantstore')
      .collection<{ _id: bigint; name: string; tag?: string }>('plants')
      .find({}, { projection: { createdAt: 0 } })
      .toArray();
    return new Map(documents.map(({ _id, ...plant }) => [_id, plant]));
  } finally {
    await client.close();
  }
}

function report(run: {
  answers: Answer[];
  faults: Fault[];
  findings: ReturnType<typeof verdict>;
  loadSeconds: number;
  loadStartedAt: number;
}): void {
  const load = run.answers.filter(({ phase }) => phase === 'load');
  const tally = new Map<string, number>();
  for (const answer of run.answers) {
    const label = `${answer.phase} ${answer.failure ?? `${String(answer.status)}${answer.error === undefined ? '' : `/${String(answer.error)}`}`}`;
    tally.set(label, (tally.get(label) ?? 0) + 1);
  }
  console.log(`\ncreates under load: ${String(load.length)} in ${run.loadSeconds.toFixed(0)} s`);
  for (const [label, count] of [...tally].sort()) console.log(`  ${label}: ${String(count)}`);
  console.log(
    `slowest answer: ${String(Math.max(...load.map(({ startedAt, endedAt }) => endedAt - startedAt)))} ms`,
  );
  console.log(
    '\nfaults (recovered: when the last request that failed because of it (503, 504, no answer; started after it, ended before the next one) ended):',
  );
  run.faults.forEach((fault, index) => {
    const next = run.faults[index + 1]?.at ?? Infinity;
    const hit = load.filter(
      (answer) => answer.startedAt >= fault.at && answer.endedAt < next && isOutage(answer),
    );
    const recovered = Math.max(fault.at, ...hit.map(({ endedAt }) => endedAt));
    console.log(
      `  +${seconds(fault.at - run.loadStartedAt)} ${fault.name}: back in ${seconds(fault.restoredAt - fault.at)}, requests recovered after ${seconds(recovered - fault.at)}, ${String(hit.length)} answered 503/504/none`,
    );
  });
  const counts = new Map<string, number>();
  for (const { kind } of run.findings) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  console.log('\nchecked against the store:');
  for (const kind of ['lost', 'wrong answer', 'unexpected answer', 'unsettled', 'phantom']) {
    console.log(`  ${kind}: ${String(counts.get(kind) ?? 0)}`);
  }
  for (const finding of run.findings.slice(0, 20)) {
    console.log(`  ${finding.kind} ${finding.id.toString()}: ${finding.detail}`);
  }
  console.log(run.findings.length === 0 ? '\nchaos: PASS' : '\nchaos: FAIL');
}

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}
