import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject, onTestFinished } from 'vitest';
import {
  GATEWAY_MAIN,
  SERVICE_NODE_FLAGS,
  startNodeService,
  WRITER_MAIN,
  type NodeServiceOptions,
} from '#local/process/node-service.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { freePort } from '#local/provision/ports.ts';
import { groupIsStable } from '#local/kafka/group-stability.ts';
import { httpIsReady } from '#local/process/http-ready.ts';
import { startServerProcess, type ServerProcess } from '#local/process/server-process.ts';
import { requireTools, type Tool } from '#local/provision/tools.ts';
import { waitUntilReady } from '#local/process/wait-until-ready.ts';
import { TOKEN } from './gateway.ts';
import { uniqueName } from './kafka.ts';
import { PARTITIONS, type WriterHarness } from './writer.ts';

export interface ServiceProcesses {
  /** The writers' consumer group, of this test's own. */
  readonly groupId: string;
  startWriter(name: string, env?: NodeJS.ProcessEnv): Promise<ServerProcess>;
  startGateway(
    name: string,
    env?: NodeJS.ProcessEnv,
  ): Promise<{ process: ServerProcess; url: string }>;
}

/** Where a service process's port named `name` listens, from its start-up log line. */
function listeningUrl(service: ServerProcess, name: string): string {
  for (const line of readFileSync(service.logFile, 'utf8').split('\n')) {
    if (!line.includes(`${name} listening`)) continue;
    return (JSON.parse(line) as { url: string }).url;
  }
  throw new Error(`${service.logFile} does not say where its ${name} listen`);
}

/** Where a writer process serves /metrics, /healthz and /readyz. */
export const writerHealthUrl = (writer: ServerProcess) =>
  listeningUrl(writer, 'writer health and metrics');

/** Where a gateway process started with METRICS_PORT serves /metrics, /healthz and /readyz. */
export const gatewayMetricsUrl = (gateway: ServerProcess) =>
  listeningUrl(gateway, 'gateway metrics and probes');

/** Starts an entry point with the service variables in `env`. */
export type ServiceLauncher = (options: NodeServiceOptions) => ServerProcess;

/** As `npm run start:*` starts them: same entry points and V8 flags, this process's environment. */
const npmStart: ServiceLauncher = (options) =>
  startNodeService({ ...options, env: { ...process.env, ...options.env } });

const PRLIMIT: Tool = {
  command: 'prlimit',
  neededFor: 'starting a service with a small descriptor limit (the connection-flood tests)',
  install: 'install util-linux (Debian/Ubuntu: apt-get install util-linux)',
};

/**
 * As `npm run start:*` starts them, but with at most `descriptors` open files (soft and hard:
 * prlimit sets both, then execs the service, which keeps its pid) and V8 flags after the
 * usual ones (a later `--max-old-space-size` wins).
 */
export function limitedLauncher({
  descriptors,
  nodeFlags = [],
}: {
  descriptors?: number;
  nodeFlags?: readonly string[];
}): ServiceLauncher {
  requireTools([PRLIMIT], process.env);
  const limit =
    descriptors === undefined ? [] : [`--nofile=${String(descriptors)}:${String(descriptors)}`];
  return (options) =>
    startServerProcess({
      name: options.name,
      command: PRLIMIT.command,
      args: [
        ...limit,
        '--',
        process.execPath,
        ...SERVICE_NODE_FLAGS,
        ...nodeFlags,
        join(projectRoot, options.script),
      ],
      env: { ...process.env, ...options.env },
      logFile: join(options.logDir, `${options.name}.log`),
      stopTimeoutMs: 30_000,
    });
}

/**
 * Real service processes (by default as `npm run start:*` runs them) on the harness's topics and
 * database; every one still running is stopped when the test ends. Their logs go to the run's
 * server log folder.
 */
export function serviceProcesses(
  harness: Pick<WriterHarness, 'topics' | 'db'>,
  launch: ServiceLauncher = npmStart,
): ServiceProcesses {
  const groupId = uniqueName('writers');
  const logDir = join(
    inject('serverLogDir') ?? mkdtempSync(join(tmpdir(), 'plant-store-')),
    uniqueName('services'),
  );
  const env: NodeJS.ProcessEnv = {
    KAFKA_BROKERS: inject('kafkaBrokers'),
    MONGODB_URI: inject('mongoUri'),
    MONGODB_DATABASE: harness.db.databaseName,
    KAFKA_CREATE_TOPIC: harness.topics.create,
    KAFKA_REPLY_TOPIC: harness.topics.replies,
    KAFKA_DLQ_TOPIC: harness.topics.dlq,
    KAFKA_WRITER_GROUP: groupId,
    KAFKA_PARTITIONS: String(PARTITIONS),
    AUTH_TOKENS: TOKEN,
    LOG_LEVEL: 'info',
  };
  const started: ServerProcess[] = [];
  onTestFinished(async () => {
    await Promise.all(started.map((service) => service.stop()));
  });
  const start = (name: string, script: string, extra: NodeJS.ProcessEnv = {}) => {
    const service = launch({ name, script, env: { ...env, ...extra }, logDir });
    started.push(service);
    return service;
  };
  const writers: ServerProcess[] = [];
  return {
    groupId,
    async startWriter(name, extra = {}) {
      const writer = start(name, WRITER_MAIN, { METRICS_PORT: '0', ...extra });
      writers.push(writer);
      // The writer joins its group before its health port listens: both are waited for. Writers
      // are counted at each look, so one stopped meanwhile is not waited for.
      await waitUntilReady(
        writer,
        async () => {
          writerHealthUrl(writer);
          await groupIsStable(
            inject('kafkaBrokers'),
            groupId,
            writers.filter((each) => each.isRunning()).length,
          );
        },
        60_000,
      );
      return writer;
    },
    async startGateway(name, extra = {}) {
      const port = await freePort();
      const url = `http://127.0.0.1:${String(port)}`;
      const gateway = start(name, GATEWAY_MAIN, { ...extra, PORT: String(port) });
      await waitUntilReady(gateway, () => httpIsReady(url), 60_000);
      return { process: gateway, url };
    },
  };
}
