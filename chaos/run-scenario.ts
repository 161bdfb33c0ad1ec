import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { stateRoot } from '#local/provision/paths.ts';
import { stopOnSignal } from '#local/process/stop-on-signal.ts';
import { WRITER_GROUP } from '#shared/contracts/kafka.ts';
import { serviceLogLines } from './observe/service-logs.ts';
import { storedPlants } from './observe/stored-plants.ts';
import { rebalanceTimeline, type LogEvent } from './observe/timeline.ts';
import { settle, type Answer } from './observe/traffic.ts';
import { alertTargets } from './report/alert-targets.ts';
import { answersCsv } from './report/answers-csv.ts';
import { readinessChanges } from './report/gray-figures.ts';
import { chaosHtml, chaosRecord, type ChaosRecord } from './report/html-report.ts';
import { reportLines } from './report/report.ts';
import { RULES_FILE, ruleTestOf } from './report/rule-test.ts';
import { isOutage, verdict } from './report/verdict.ts';
import type {
  GrayScenario,
  ScenarioContext,
  Target,
  VisibleScenario,
} from './scenarios/scenario.ts';
import { commandPartitioner } from './stack/cluster.ts';
import { startScenarioServices, startScenarioStack } from './stack/scenario-stack.ts';
import {
  endLoad,
  makeChanges,
  startScenarioLoad,
  type ScenarioOptions,
  type UnderLoad,
} from './under-load.ts';

const REPLY_TIMEOUT_MS = 5_000;
const PARTITIONS = 3;
/** The gateways' default MAX_IN_FLIGHT, which the run does not change. */
const MAX_IN_FLIGHT = 10_000;

/**
 * One scenario on a local stack of its own, in a folder of its own under .local/chaos: the load,
 * the scenario's changes, then the verdict, the figures and the targets, printed and written
 * there. Resolves with whether it passed; a Ctrl-C stops the stack and exits.
 */
export async function runScenario(options: ScenarioOptions): Promise<boolean> {
  const { scenario, brokers, minCreates, store, secure } = options;
  const dir = join(stateRoot, 'chaos', new Date().toISOString().replaceAll(':', '-'));
  const logDir = join(dir, 'logs');
  const token = `chaos-${randomBytes(12).toString('base64url')}`;

  console.log(
    `chaos: scenario ${scenario.name}; starting ${brokers === 1 ? 'Kafka' : `${String(brokers)} Kafka brokers`}${secure ? ' (secured)' : ''} and the store (${store ?? 'default'}) in ${dir}…`,
  );
  const started = await startScenarioStack(dir, options);
  stopOnSignal('the chaos run', started.stop);
  const env = scenarioEnv(token, options.sessionTimeoutMs);

  try {
    const services = await startScenarioServices(scenario, started, { env, logDir });
    const run = startScenarioLoad(
      options,
      { token, hangAfterMs: REPLY_TIMEOUT_MS + 10_000 },
      services,
    );
    const context = await makeChanges(options, started, run);
    const loadEndedAt = await endLoad(options, run);
    const { stack } = started;
    const { fleet, loadStartedAt, changes } = run;
    const loadSeconds = (loadEndedAt - loadStartedAt) / 1_000;
    const { answers, findings } = await checkAnswers(run, stack.mongoUri, dir);
    const partition = commandPartitioner(PARTITIONS);
    const partitionOf = ({ content }: { content: { id: bigint } }) => partition(content.id);
    const rebalances = rebalanceTimeline([...stack.kafka.logFiles.values()], WRITER_GROUP);
    const load = run.traffic.answers;
    const targets = scenario.gray
      ? await grayTargets(scenario, run, { options, dir, partitionOf, rebalances, loadEndedAt })
      : await visibleTargets(scenario, run, context, { dir, partitionOf });

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
      findings.length > 0 || load.length < minCreates || targets.some(({ met }) => !met);
    await writeRecord(
      dir,
      chaosRecord({
        scenario: scenario.name,
        startedAt: new Date(loadStartedAt).toISOString(),
        passed: !failed,
        load,
        changes,
        targets,
        findings,
        loadStartedAt,
        loadSeconds,
      }),
    );
    console.log(
      `\nchaos ${scenario.name}: ${failed ? 'FAIL' : 'PASS'} (report: ${join(dir, 'report.html')})`,
    );
    return !failed;
  } finally {
    await started.stop();
  }
}

function scenarioEnv(token: string, sessionTimeoutMs: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AUTH_TOKENS: token,
    REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
    KAFKA_PARTITIONS: String(PARTITIONS),
    // A replaced gateway keeps answering this long after SIGTERM, as behind a Kubernetes Service.
    SHUTDOWN_DRAIN_MS: '1000',
    // How long a killed writer's partitions wait (the local brokers allow sessions from 1 s).
    KAFKA_SESSION_TIMEOUT_MS: String(sessionTimeoutMs),
    LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
  };
}

/**
 * Every answer with the retries of those answered 503/504, written to `answers.csv`, and what
 * checking them against the store found.
 */
async function checkAnswers(
  { traffic, trafficOptions, loadStartedAt }: UnderLoad,
  mongoUri: string,
  dir: string,
) {
  const outages = traffic.answers.filter(isOutage);
  console.log(`chaos: load over; retrying ${String(outages.length)} requests answered 503/504…`);
  const retries = await settle(trafficOptions, outages);
  const answers = [...traffic.answers, ...retries];
  const findings = verdict(answers, await storedPlants(mongoUri));
  await writeFile(join(dir, 'answers.csv'), answersCsv(answers, loadStartedAt));
  return { answers, findings };
}

type PartitionOf = (answer: Answer) => number;

/** The scenario's targets, and with its alerts those of the promtool rule test written in `dir`. */
async function visibleTargets(
  scenario: VisibleScenario,
  { traffic, changes, scraping, loadStartedAt }: UnderLoad,
  { killedPartitions, killedGateways }: ScenarioContext,
  { dir, partitionOf }: { dir: string; partitionOf: PartitionOf },
): Promise<Target[]> {
  const load = traffic.answers;
  const targets = scenario.targets({
    load,
    changes,
    killedPartitions,
    killedGateways,
    partitionOf,
  });
  if (scraping !== undefined && scenario.alerts !== undefined) {
    const expected = scenario.alerts.map(({ alert, before }) => {
      const at = changes.find(({ name }) => name === before)?.at;
      if (at === undefined) throw new Error(`${scenario.name} made no change "${before}"`);
      return { alert, at };
    });
    const file = join(dir, 'alerts.test.yml');
    await writeFile(file, ruleTestOf(scraping.scrapes, expected, relative(dir, RULES_FILE)));
    targets.push(...(await alertTargets(file, expected, changes[0]?.at ?? loadStartedAt)));
  }
  return targets;
}

/** The scenario's targets on what the run observed; the probe's samples written and printed. */
async function grayTargets(
  scenario: GrayScenario,
  { traffic, changes, probe, fleet, loadStartedAt }: UnderLoad,
  observed: {
    options: ScenarioOptions;
    dir: string;
    partitionOf: PartitionOf;
    rebalances: readonly LogEvent[];
    loadEndedAt: number;
  },
): Promise<Target[]> {
  if (probe === undefined)
    throw new Error(`${scenario.name}'s targets need what the run observed and each partition`);
  const { options, dir, partitionOf, rebalances, loadEndedAt } = observed;
  const targets = scenario.targets({
    load: traffic.answers,
    changes,
    partitionOf,
    samples: probe.samples,
    rebalances,
    serviceLogs: serviceLogLines(fleet.all()),
    loadStartedAt,
    loadEndedAt,
    connections: options.connections,
    sessionTimeoutMs: options.sessionTimeoutMs,
    replyTimeoutMs: REPLY_TIMEOUT_MS,
    maxInFlight: MAX_IN_FLIGHT,
  });
  await writeFile(join(dir, 'samples.json'), JSON.stringify(probe.samples));
  console.log('\nreadiness (probed every second):');
  for (const { at, process, ready } of readinessChanges(probe.samples))
    console.log(`  +${((at - loadStartedAt) / 1_000).toFixed(1)} s ${process} ${ready}`);
  return targets;
}

/** The run's record (`run.json`) and its page (`report.html`). */
async function writeRecord(dir: string, record: ChaosRecord): Promise<void> {
  await writeFile(join(dir, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
  await writeFile(join(dir, 'report.html'), chaosHtml(record).html);
}
