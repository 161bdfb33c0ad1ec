import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stateRoot } from '#local/provision/paths.ts';
import { freePort } from '#local/provision/ports.ts';
import { progressLine } from '#tooling/progress/progress-line.ts';
import { serviceConnections } from '#local/secure-stack.ts';
import { startServices } from '#local/services.ts';
import { startLocalStack } from '#local/stack.ts';
import { stopOnSignal } from '#local/process/stop-on-signal.ts';
import { TOPICS, WRITER_GROUP } from '#shared/contracts/kafka.ts';
import { startProbe } from './observe/probe.ts';
import { startScraping } from './observe/scrape.ts';
import { showChaosProgress } from './observe/progress.ts';
import { serviceLogLines } from './observe/service-logs.ts';
import { storedPlants } from './observe/stored-plants.ts';
import { rebalanceTimeline } from './observe/timeline.ts';
import { settle, startTraffic } from './observe/traffic.ts';
import type { ChaosOptions } from './options.ts';
import { alertTargets } from './report/alert-targets.ts';
import { answersCsv } from './report/answers-csv.ts';
import type { Change } from './report/figures.ts';
import { readinessChanges } from './report/gray-figures.ts';
import { chaosHtml, chaosRecord } from './report/html-report.ts';
import { reportLines } from './report/report.ts';
import { readByTheRules, RULES_FILE, ruleTestOf } from './report/rule-test.ts';
import { isOutage, verdict } from './report/verdict.ts';
import { GRAY_GATEWAYS, GRAY_WRITERS } from './scenarios/gray/steps.ts';
import type { ChangingScenario, Target, VisibleScenario } from './scenarios/scenario.ts';
import { clusterFacts, commandPartitioner } from './stack/cluster.ts';
import { dataFolderOf, mountTmpfs } from './stack/data-on-tmpfs.ts';
import { serviceFleet, type ServiceFleet } from './stack/fleet.ts';
import { startGrayStack, type GrayLinks } from './stack/process-links.ts';

const REPLY_TIMEOUT_MS = 5_000;
const PARTITIONS = 3;
/** The gateways' default MAX_IN_FLIGHT, which the run does not change. */
const MAX_IN_FLIGHT = 10_000;
/** Gray scenarios: time after the heal for the processes to be back (their targets read it). */
const AFTER_HEAL_MS = 30_000;

/**
 * One scenario on a local stack of its own, in a folder of its own under .local/chaos: the load,
 * the scenario's changes, then the verdict, the figures and the targets, printed and written
 * there. Resolves with whether it passed; a Ctrl-C stops the stack and exits.
 */
export async function runScenario(
  options: ChaosOptions & { scenario: ChangingScenario },
): Promise<boolean> {
  const { scenario, brokers, connections, minCreates, faultEveryMs, store, secure } = options;
  const dir = join(stateRoot, 'chaos', new Date().toISOString().replaceAll(':', '-'));
  const logDir = join(dir, 'logs');
  const token = `chaos-${randomBytes(12).toString('base64url')}`;

  console.log(
    `chaos: scenario ${scenario.name}; starting ${brokers === 1 ? 'Kafka' : `${String(brokers)} Kafka brokers`}${secure ? ' (secured)' : ''} and the store (${store ?? 'default'}) in ${dir}…`,
  );
  const tmpfs =
    scenario.gray || scenario.tmpfs === undefined
      ? undefined
      : mountTmpfs(dataFolderOf(dir, scenario.tmpfs.folder, store), scenario.tmpfs.sizeMb);
  const { stack, links } = await (
    scenario.gray
      ? startGrayStack({ dir, store, brokers, writers: GRAY_WRITERS, gateways: GRAY_GATEWAYS })
      : startLocalStack({ dir, store, secure, brokers }).then((started) => ({
          stack: started,
          links: undefined,
        }))
  ).catch((error: unknown) => {
    tmpfs?.unmount();
    throw error;
  });
  const stopStack = async () => {
    await stack.stop();
    await links?.stop();
    tmpfs?.unmount();
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
    const facts = clusterFacts(stack.kafka.admin);
    const scraped = scenario.gray ? undefined : await metricsPorts(scenario);
    const ownEnv =
      links === undefined
        ? scraped === undefined
          ? {}
          : { ownEnv: (name: string) => scraped.envOf(name) }
        : { ownEnv: (name: string) => links.envOf(name) };
    const common = { env, connections: await serviceConnections(stack), logDir, ...ownEnv };
    const fleet = serviceFleet(
      await startServices({
        ...common,
        writers: scenario.gray ? GRAY_WRITERS.length : scenario.writers,
        gateways: scenario.gray ? GRAY_GATEWAYS.length : scenario.gateways,
      }),
      { ...common, scenario: scenario.name, writerGroup: facts.group },
    );
    // The gray targets read what operators would see; the other scenarios stay unprobed.
    const probe = links === undefined ? undefined : probeFleet(fleet, links, facts);
    const trafficOptions = {
      urls: fleet.urls,
      token,
      connections,
      firstId: 9_007_199_254_740_993n,
      hangAfterMs: REPLY_TIMEOUT_MS + 10_000,
    };
    const scraping =
      scraped === undefined
        ? undefined
        : startScraping(() => [...fleet.urls, ...scraped.urls], readByTheRules());
    const traffic = startTraffic(trafficOptions);
    const loadStartedAt = Date.now();
    console.log(
      `chaos: ${String(connections)} clients on ${fleet.urls.join(', ')}; a change every ${String(faultEveryMs / 1_000)} s`,
    );

    const changes: Change[] = [];
    const progress = progressLine();
    const stopProgress = showChaosProgress(progress, traffic.answers, {
      startedAt: loadStartedAt,
      phase: () => `${scenario.name}, after "${changes.at(-1)?.name ?? 'the load started'}"`,
    });
    const context = {
      stack,
      fleet,
      facts,
      ...(tmpfs === undefined ? {} : { tmpfs }),
      killedPartitions: new Map<string, readonly number[]>(),
      killedGateways: new Map<string, string>(),
      async change(name: string, act: () => Promise<void>, afterMs = faultEveryMs) {
        await sleep(afterMs);
        const at = Date.now();
        progress.log(`chaos: +${((at - loadStartedAt) / 1_000).toFixed(1)} s ${name}`);
        await act();
        changes.push({ name, at, doneAt: Date.now() });
      },
    };
    try {
      if (!scenario.gray) await scenario.steps(context);
      else if (links === undefined)
        throw new Error(`${scenario.name} needs the processes' gray links`);
      else await scenario.steps({ ...context, links });
    } catch (error) {
      // A fault that did not take ends the run here; the load and the services end with it.
      await traffic.stop();
      stopProgress();
      await probe?.stop();
      await scraping?.stop();
      await Promise.all(fleet.all().map((service) => service.stop()));
      throw error;
    }
    await sleep(scenario.gray ? AFTER_HEAL_MS : faultEveryMs);
    while (traffic.answers.length < minCreates) {
      progress.log(`chaos: ${String(traffic.answers.length)} creates so far…`);
      await sleep(5_000);
    }
    await traffic.stop();
    stopProgress();
    const loadEndedAt = Date.now();
    const loadSeconds = (loadEndedAt - loadStartedAt) / 1_000;
    await probe?.stop();
    await scraping?.stop();

    const outages = traffic.answers.filter(isOutage);
    console.log(`chaos: load over; retrying ${String(outages.length)} requests answered 503/504…`);
    const retries = await settle(trafficOptions, outages);
    const answers = [...traffic.answers, ...retries];
    const findings = verdict(answers, await storedPlants(stack.mongoUri));
    await writeFile(join(dir, 'answers.csv'), answersCsv(answers, loadStartedAt));
    const partition = commandPartitioner(PARTITIONS);
    const partitionOf = ({ content }: { content: { id: bigint } }) => partition(content.id);
    const rebalances = rebalanceTimeline([...stack.kafka.logFiles.values()], WRITER_GROUP);
    const load = traffic.answers;
    let targets: Target[];
    if (!scenario.gray) {
      const { killedPartitions, killedGateways } = context;
      targets = scenario.targets({ load, changes, killedPartitions, killedGateways, partitionOf });
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
    } else if (probe === undefined) {
      throw new Error(`${scenario.name}'s targets need what the run observed and each partition`);
    } else {
      targets = scenario.targets({
        load,
        changes,
        partitionOf,
        samples: probe.samples,
        rebalances,
        serviceLogs: serviceLogLines(fleet.all()),
        loadStartedAt,
        loadEndedAt,
        connections,
        sessionTimeoutMs: options.sessionTimeoutMs,
        replyTimeoutMs: REPLY_TIMEOUT_MS,
        maxInFlight: MAX_IN_FLIGHT,
      });
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
      findings.length > 0 || load.length < minCreates || targets.some(({ met }) => !met);
    const record = chaosRecord({
      scenario: scenario.name,
      startedAt: new Date(loadStartedAt).toISOString(),
      passed: !failed,
      load,
      changes,
      targets,
      findings,
      loadStartedAt,
      loadSeconds,
    });
    await writeFile(join(dir, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
    await writeFile(join(dir, 'report.html'), chaosHtml(record).html);
    console.log(
      `\nchaos ${scenario.name}: ${failed ? 'FAIL' : 'PASS'} (report: ${join(dir, 'report.html')})`,
    );
    return !failed;
  } finally {
    await stopStack();
  }
}

/** What an operator's probes would show of every writer and gateway, and of the writers' group. */
function probeFleet(fleet: ServiceFleet, links: GrayLinks, facts: ReturnType<typeof clusterFacts>) {
  return startProbe({
    processes: [
      ...fleet.writers.map((process) => ({ process, readyUrl: links.healthUrlOf(process.name) })),
      ...fleet.gateways.map((process, index) => ({ process, readyUrl: fleet.urls[index] ?? '' })),
    ],
    group: () => facts.group(WRITER_GROUP, TOPICS.create),
    committed: () => facts.committed(WRITER_GROUP, TOPICS.create),
  });
}

/**
 * A metrics port of each writer a scenario starts, when its alerts are tested on what the run
 * scrapes: the writers' ports are otherwise free ones, named only in their logs.
 */
async function metricsPorts(scenario: VisibleScenario) {
  if (scenario.alerts === undefined) return undefined;
  const names = Array.from(
    { length: scenario.writers },
    (_, index) => `writer-${String(index + 1)}`,
  );
  const ports = new Map(
    await Promise.all(names.map(async (name) => [name, await freePort()] as const)),
  );
  return {
    urls: [...ports.values()].map((port) => `http://127.0.0.1:${String(port)}`),
    envOf: (name: string): Record<string, string> => {
      const port = ports.get(name);
      return port === undefined ? {} : { METRICS_PORT: String(port) };
    },
  };
}
