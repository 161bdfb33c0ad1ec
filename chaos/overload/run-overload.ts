import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { provisionVegeta } from '#local/load/vegeta.ts';
import { cacheRoot, stateRoot } from '#local/provision/paths.ts';
import { stopOnSignal } from '#local/process/stop-on-signal.ts';
import { startServices } from '#local/services.ts';
import { startLocalStack } from '#local/stack.ts';
import { storeReached } from '#local/faults/distant-store.ts';
import { progressLine, type ProgressLine } from '#tooling/progress/progress-line.ts';
import { storedPlants } from '../observe/stored-plants.ts';
import { isConclusive, settle, type Answer } from '../observe/traffic.ts';
import type { ChaosOptions } from '../options.ts';
import { verdict } from '../report/verdict.ts';
import { sampleGateway } from './gateway-gauges.ts';
import { generatorConnections, openLoad, splitCores, type CoreSplit } from './open-load.ts';
import { overloadSummary, writeOverloadReport } from './overload-report.ts';
import { overloadPhases, type PhasePlan } from './phases.ts';
import { overloadTargets, type PhaseRun } from './targets.ts';

const REPLY_TIMEOUT_MS = 5_000;
const PARTITIONS = 3;
/** The closed loop that measures T: its senders, its warm-up and its length. */
const CLOSED_LOOP_WORKERS = 64;
const WARM_UP_SECONDS = 10;
const MEASURE_SECONDS = 20;
/**
 * The gateway's idle keep-alive timeout here, longer than any of vegeta's loads: vegeta keeps idle
 * connections for ever, and a server that closes one as the client sends on it resets the request
 * (docs/decisions/0011-connections-bounded.md). As behind a balancer, the server's timeout must
 * outlast its client's.
 */
const KEEP_ALIVE_TIMEOUT_MS = 300_000;
/** Requests retried at once after the load: more would flood the gateway's connection cap. */
const SETTLING_AT_ONCE = 32;

/**
 * `--scenario overload`: e2e's closed-loop throughput T measured on one gateway and one writer,
 * then 2T and 4T offered on schedule for 60 s each and T/4 for 30 s, back to back (`phases.ts`),
 * by vegeta on a core of its own (`splitCores`). Every answer is checked against the store;
 * resolves with whether every target held.
 */
export async function runOverload(options: ChaosOptions): Promise<boolean> {
  const dir = join(stateRoot, 'chaos', new Date().toISOString().replaceAll(':', '-'));
  const logDir = join(dir, 'logs');
  const token = `chaos-${randomBytes(12).toString('base64url')}`;
  const split = splitCores();
  const away =
    options.storeDelayMs === 0
      ? ''
      : `, the store ${String(options.storeDelayMs)} ms away each way`;
  console.log(`chaos: scenario overload${away}; starting Kafka and the store in ${dir}…`);
  const stack = await startLocalStack({ dir, store: options.store, brokers: options.brokers });
  const store = await storeReached(stack, options.storeDelayMs, logDir);
  stopOnSignal('the chaos run', store.stop);
  try {
    const services = await startServices({
      env: overloadEnv(token),
      connections: await store.connections(),
      logDir,
      writers: 1,
      gateways: 1,
    });
    const url = services.urls[0] ?? '';
    const { load, arrangement } = await loadOnGateway(url, { token, dir, split });
    const progress = progressLine();
    const { warmUp, measured, throughput } = await measureThroughput(load, progress);
    const { runs, loadStartedAt, loadEndedAt } = await offerPhases(
      load,
      url,
      overloadPhases(throughput),
      { dir, progress },
    );
    const all = [
      ...(await warmUp.answers()),
      ...measured,
      ...runs.flatMap(({ answers }) => answers),
    ];
    const retries = await retryUnanswered(all, url, token);
    const findings = verdict([...all, ...retries], await storedPlants(stack.mongoUri), {
      refusalsFinal: true,
    });
    const targets = overloadTargets(throughput, runs);
    const failed = findings.length > 0 || targets.some(({ met }) => !met);
    const outcome = { throughput, arrangement, runs, findings, targets, failed };
    console.log(overloadSummary(outcome));
    await Promise.all([...services.writers, ...services.gateways].map((each) => each.stop()));
    await writeOverloadReport(dir, { ...outcome, loadStartedAt, loadEndedAt });
    console.log(
      `\nchaos overload: ${failed ? 'FAIL' : 'PASS'} (report: ${join(dir, 'report.html')})`,
    );
    return !failed;
  } finally {
    await store.stop();
  }
}

function overloadEnv(token: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AUTH_TOKENS: token,
    REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
    KAFKA_PARTITIONS: String(PARTITIONS),
    KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
    LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'warn',
  };
}

type OpenLoad = ReturnType<typeof openLoad>;

/** vegeta's loads on the gateway at `url`, and how they share the machine with it, printed. */
async function loadOnGateway(
  url: string,
  { token, dir, split }: { token: string; dir: string; split: CoreSplit },
): Promise<{ load: OpenLoad; arrangement: string }> {
  const vegeta = await provisionVegeta(cacheRoot(), join(dir, 'vegeta-provision.log'));
  const connections = await generatorConnections(url);
  const arrangement = `${split.description}; at most ${String(connections.max)} connections to the gateway (its cap: ${String(connections.cap)})`;
  console.log(`chaos: ${arrangement}`);
  const load = openLoad({ vegeta, url, token, dir, split, maxConnections: connections.max });
  return { load, arrangement };
}

/** T: the creates a second the closed loop's senders get answered conclusively, after its warm-up. */
async function measureThroughput(load: OpenLoad, progress: ProgressLine) {
  progress.log(`chaos: warming up, ${String(WARM_UP_SECONDS)} s of closed loop…`);
  const warmUp = await load.closedLoop(CLOSED_LOOP_WORKERS, WARM_UP_SECONDS);
  await warmUp.run();
  const closed = await load.closedLoop(CLOSED_LOOP_WORKERS, MEASURE_SECONDS);
  await closed.run();
  const measured = await closed.answers();
  const throughput = measured.filter(isConclusive).length / MEASURE_SECONDS;
  progress.log(
    `chaos: T = ${throughput.toFixed(0)} creates/s (${String(CLOSED_LOOP_WORKERS)} senders, closed loop, ${String(MEASURE_SECONDS)} s)`,
  );
  return { warmUp, measured, throughput };
}

/**
 * Each phase's rate on schedule, back to back, with the gateway's gauges sampled meanwhile
 * (`gateway-samples.json`); then every phase's answers.
 */
async function offerPhases(
  load: OpenLoad,
  url: string,
  plans: readonly PhasePlan[],
  { dir, progress }: { dir: string; progress: ProgressLine },
): Promise<{ runs: PhaseRun[]; loadStartedAt: number; loadEndedAt: number }> {
  const pending = [];
  for (const plan of plans) pending.push(await load.onSchedule(plan.rate, plan.seconds));

  const loadStartedAt = Date.now();
  const phases: (PhasePlan & { startedAt: number })[] = [];
  let phase = '';
  const gauges = sampleGateway(url, (sample) => {
    progress.update(
      `  ${phase}: ${((sample.at - loadStartedAt) / 1_000).toFixed(0)} s, the gateway answered ${String(sample.answered)} 200 and ${String(sample.refused)} 503 in the last second; it admits ${String(sample.admissionLimit)} at once`,
    );
  });
  for (const [index, plan] of plans.entries()) {
    phase = `${plan.name} (${String(plan.rate)}/s)`;
    phases.push({ ...plan, startedAt: Date.now() });
    await pending[index]?.run();
    progress.log(`chaos: ${plan.name} offered for ${String(plan.seconds)} s`);
  }
  const loadEndedAt = Date.now();
  await gauges.stop();
  await writeFile(join(dir, 'gateway-samples.json'), JSON.stringify(gauges.samples));
  progress.log('chaos: reading the answers…');
  const runs: PhaseRun[] = [];
  for (const [index, phase] of phases.entries())
    runs.push({ ...phase, answers: (await pending[index]?.answers()) ?? [] });
  return { runs, loadStartedAt, loadEndedAt };
}

/** Retries of every request answered 504 or not at all, `SETTLING_AT_ONCE` at a time. */
async function retryUnanswered(all: readonly Answer[], url: string, token: string) {
  const unanswered = all.filter(({ status }) => status === 504 || status === 0);
  console.log(
    `chaos: load over; retrying ${String(unanswered.length)} requests answered 504 or not at all…`,
  );
  const retries = [];
  for (let from = 0; from < unanswered.length; from += SETTLING_AT_ONCE)
    retries.push(
      ...(await settle(
        {
          urls: [url],
          token,
          connections: 1,
          firstId: 0n,
          hangAfterMs: REPLY_TIMEOUT_MS + 10_000,
        },
        unanswered.slice(from, from + SETTLING_AT_ONCE),
      )),
    );
  return retries;
}
