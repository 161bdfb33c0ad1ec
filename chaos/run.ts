// `npm run chaos [-- --scenario NAME]`: the local stack under load from 32 clients while writers,
// gateways or brokers are changed the way operators and faults change them, or (the gray
// scenarios) while one process's path to Kafka or the store is made slow, silent or cut through
// toxiproxy; then every answer is checked against the store, and each change's figures and the
// scenario's targets are printed (docs/how-to/run-chaos.md). `--scenario gray` runs
// every gray scenario, one after another, each on a stack of its own.
// Exits 1 on any lost plant, wrong or unexpected answer, unsettled request, missed target, or
// (mixed) too few creates.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { stateRoot } from '#local/provision/paths.ts';
import { startServices } from '#local/services.ts';
import { serviceConnections } from '#local/secure-stack.ts';
import { startLocalStack } from '#local/stack.ts';
import { stopOnSignal } from '#local/process/stop-on-signal.ts';
import { TOPICS, WRITER_GROUP } from '#shared/contracts/kafka.ts';
import { progressLine } from '#local/process/progress-line.ts';
import { clusterFacts, commandPartitioner } from './cluster.ts';
import type { Change } from './figures.ts';
import { chaosHtml, chaosRecord } from './html-report.ts';
import { serviceFleet } from './fleet.ts';
import { reportLines } from './report.ts';
import { INITIAL_WRITERS, initialGateways, runScenario } from './scenarios.ts';
import { chaosOptions, type ChaosOptions } from './options.ts';
import { isGray, targetsOf } from './targets.ts';
import { rebalanceTimeline } from './timeline.ts';
import { settle, startTraffic, type Answer } from './traffic.ts';
import { runEachGrayScenario } from './gray-run.ts';
import { readinessChanges } from './gray-figures.ts';
import { GRAY_GATEWAYS, GRAY_WRITERS } from './gray-scenarios.ts';
import { startProbe } from './probe.ts';
import { showChaosProgress } from './progress.ts';
import { startGrayStack } from './process-links.ts';
import { serviceLogLines } from './service-logs.ts';
import { isOutage, verdict, type StoredPlant } from './verdict.ts';

let options: ChaosOptions;
try {
  options = chaosOptions(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
if (options.scenario === 'gray') process.exit(await runEachGrayScenario(process.argv.slice(2)));
const { scenario, brokers, connections, minCreates, faultEveryMs, store, secure } = options;
const REPLY_TIMEOUT_MS = 5_000;
const PARTITIONS = 3;
const gray = isGray(scenario);
/** The gateways' default MAX_IN_FLIGHT, which the run does not change. */
const MAX_IN_FLIGHT = 10_000;
/** Gray scenarios: time after the heal for the processes to be back (their targets read it). */
const AFTER_HEAL_MS = 30_000;

const dir = join(stateRoot, 'chaos', new Date().toISOString().replaceAll(':', '-'));
const logDir = join(dir, 'logs');
const token = `chaos-${randomBytes(12).toString('base64url')}`;

console.log(
  `chaos: scenario ${scenario}; starting ${brokers === 1 ? 'Kafka' : `${String(brokers)} Kafka brokers`}${secure ? ' (secured)' : ''} and the store (${store ?? 'default'}) in ${dir}…`,
);
const { stack, links } = gray
  ? await startGrayStack({ dir, store, brokers, writers: GRAY_WRITERS, gateways: GRAY_GATEWAYS })
  : { stack: await startLocalStack({ dir, store, secure, brokers }), links: undefined };
const stopStack = async () => {
  await stack.stop();
  await links?.stop();
};
stopOnSignal('the chaos run', stopStack);
const env = {
  ...process.env,
  AUTH_TOKENS: token,
  REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
  KAFKA_PARTITIONS: String(PARTITIONS),
  // A replaced gateway keeps answering this long after SIGTERM, as behind a Kubernetes Service.
  SHUTDOWN_DRAIN_MS: '1000',
  // How long a killed writer's partitions wait (the local brokers allow sessions from 1 s).
  KAFKA_SESSION_TIMEOUT_MS: String(options.sessionTimeoutMs),
  LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
};

try {
  const connectionsOfServices = await serviceConnections(stack);
  const facts = clusterFacts(stack.kafka.admin);
  const ownEnv = links === undefined ? {} : { ownEnv: (name: string) => links.envOf(name) };
  const fleet = serviceFleet(
    await startServices({
      env,
      connections: connectionsOfServices,
      logDir,
      writers: INITIAL_WRITERS[scenario],
      gateways: initialGateways(scenario),
      ...ownEnv,
    }),
    { env, connections: connectionsOfServices, logDir, writerGroup: facts.group, ...ownEnv },
  );
  // What an operator's probes would show, for the gray targets; the other scenarios stay unprobed.
  const probe =
    links === undefined
      ? undefined
      : startProbe({
          processes: [
            ...fleet.writers.map((process) => ({
              process,
              readyUrl: links.healthUrlOf(process.name),
            })),
            ...fleet.gateways.map((process, index) => ({
              process,
              readyUrl: fleet.urls[index] ?? '',
            })),
          ],
          group: () => facts.group(WRITER_GROUP, TOPICS.create),
          committed: () => facts.committed(WRITER_GROUP, TOPICS.create),
        });
  const trafficOptions = {
    urls: fleet.urls,
    token,
    connections,
    firstId: 9_007_199_254_740_993n,
    hangAfterMs: REPLY_TIMEOUT_MS + 10_000,
  };
  const traffic = startTraffic(trafficOptions);
  const loadStartedAt = Date.now();
  console.log(
    `chaos: ${String(connections)} clients on ${fleet.urls.join(', ')}; a change every ${String(faultEveryMs / 1_000)} s`,
  );

  const changes: Change[] = [];
  const progress = progressLine();
  const stopProgress = showChaosProgress(progress, traffic.answers, {
    startedAt: loadStartedAt,
    phase: () => `${scenario}, after "${changes.at(-1)?.name ?? 'the load started'}"`,
  });
  const killedPartitions = new Map<string, readonly number[]>();
  const killedGateways = new Map<string, string>();
  await runScenario(scenario, {
    stack,
    fleet,
    facts,
    killedPartitions,
    killedGateways,
    links,
    async change(name, act, afterMs = faultEveryMs) {
      await sleep(afterMs);
      const at = Date.now();
      progress.log(`chaos: +${((at - loadStartedAt) / 1_000).toFixed(1)} s ${name}`);
      await act();
      changes.push({ name, at, doneAt: Date.now() });
    },
  });
  await sleep(gray ? AFTER_HEAL_MS : faultEveryMs);
  while (traffic.answers.length < minCreates) {
    progress.log(`chaos: ${String(traffic.answers.length)} creates so far…`);
    await sleep(5_000);
  }
  await traffic.stop();
  stopProgress();
  const loadEndedAt = Date.now();
  const loadSeconds = (loadEndedAt - loadStartedAt) / 1_000;
  await probe?.stop();

  const outages = traffic.answers.filter(isOutage);
  console.log(`chaos: load over; retrying ${String(outages.length)} requests answered 503/504…`);
  const retries = await settle(trafficOptions, outages);
  const answers = [...traffic.answers, ...retries];
  const findings = verdict(answers, await storedPlants(stack.mongoUri));
  await writeFile(join(dir, 'answers.csv'), answersCsv(answers, loadStartedAt));
  const partition = commandPartitioner(PARTITIONS);
  const partitionOf = ({ content }: { content: { id: bigint } }) => partition(content.id);
  const rebalances = rebalanceTimeline([...stack.kafka.logFiles.values()], WRITER_GROUP);
  const targets = targetsOf({
    scenario,
    load: traffic.answers,
    changes,
    killedPartitions,
    killedGateways,
    partitionOf,
    ...(probe === undefined
      ? {}
      : {
          observed: {
            samples: probe.samples,
            rebalances,
            serviceLogs: serviceLogLines(fleet.all()),
            loadStartedAt,
            loadEndedAt,
            connections,
            sessionTimeoutMs: options.sessionTimeoutMs,
            replyTimeoutMs: REPLY_TIMEOUT_MS,
            maxInFlight: MAX_IN_FLIGHT,
          },
        }),
  });
  if (probe !== undefined) {
    await writeFile(join(dir, 'samples.json'), JSON.stringify(probe.samples));
    console.log('\nreadiness (probed every second):');
    for (const { at, process, ready } of readinessChanges(probe.samples))
      console.log(`  +${((at - loadStartedAt) / 1_000).toFixed(1)} s ${process} ${ready}`);
  }

  console.log(
    [
      '',
      ...reportLines({
        answers,
        changes,
        findings,
        targets,
        loadStartedAt,
        loadSeconds,
        partitionOf,
        rebalances,
      }),
    ].join('\n'),
  );
  await Promise.all(fleet.all().map((service) => service.stop()));
  const failed =
    findings.length > 0 || traffic.answers.length < minCreates || targets.some(({ met }) => !met);
  const record = chaosRecord({
    scenario,
    startedAt: new Date(loadStartedAt).toISOString(),
    passed: !failed,
    load: traffic.answers,
    changes,
    targets,
    findings,
    loadStartedAt,
    loadSeconds,
  });
  await writeFile(join(dir, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
  await writeFile(join(dir, 'report.html'), chaosHtml(record).html);
  console.log(
    `\nchaos ${scenario}: ${failed ? 'FAIL' : 'PASS'} (report: ${join(dir, 'report.html')})`,
  );
  process.exitCode = failed ? 1 : 0;
} finally {
  await stopStack();
}

/** Every answer, times in ms since the load started: for a closer look at a change. */
function answersCsv(answers: readonly Answer[], loadStartedAt: number): string {
  const rows = answers.map((answer) =>
    [
      answer.phase,
      answer.startedAt - loadStartedAt,
      answer.endedAt - loadStartedAt,
      answer.status,
      answer.error ?? '',
      JSON.stringify(answer.failure ?? ''),
      answer.gateway,
      answer.content.id,
    ].join(','),
  );
  return ['phase,started_ms,ended_ms,status,error,failure,gateway,id', ...rows, ''].join('\n');
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
