import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { projectRoot } from '#local/provision/paths.ts';
import { freePort } from '#local/provision/ports.ts';
import { groupIsStable } from '#local/kafka/group-stability.ts';
import { httpIsReady } from '#local/process/http-ready.ts';
import { runLogged } from '#local/process/run-logged.ts';
import { startServerProcess, type ServerProcess } from '#local/process/server-process.ts';
import { waitUntilReady } from '#local/process/wait-until-ready.ts';
import { ensureTopics } from '#shared/kafka/ensure-topics.ts';
import { createLogger } from '#shared/logger.ts';
import { STARTUP_TIMEOUT_MS, startUpWithin } from '#shared/start-up.ts';

const PACKAGE = join(projectRoot, 'bench', 'nestjs');
const CREATE_TOPIC = 'bench.nestjs.create';
/** Nest's group for the microservice; it appends "-server" (and "-client" to a client's). */
const WRITERS_GROUP = 'bench-nestjs-writers-server';

export interface NestjsOptions {
  brokers: string;
  partitions: number;
  logDir: string;
}

/**
 * Installs bench/nestjs's own dependencies from its lockfile when they are missing or older, and
 * compiles it (Nest needs TypeScript's legacy decorators, which Node's type stripping does not
 * run). Its topics are created first: kafkajs does not wait for a topic created on first use.
 */
export async function prepareNestjs({ brokers, partitions, logDir }: NestjsOptions): Promise<void> {
  const logFile = join(logDir, 'nestjs-build.log');
  const installed = join(PACKAGE, 'node_modules', '.package-lock.json');
  const lockfile = join(PACKAGE, 'package-lock.json');
  if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lockfile).mtimeMs) {
    console.log('nestjs: installing bench/nestjs from its lockfile…');
    await runLogged('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PACKAGE, logFile });
  }
  const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  await runLogged(process.execPath, [tsc, '-p', PACKAGE], { cwd: PACKAGE, logFile });
  await ensureTopics(
    new Kafka({ brokers: brokers.split(','), logLevel: logLevel.NOTHING }),
    { create: CREATE_TOPIC, replies: `${CREATE_TOPIC}.reply`, dlq: `${CREATE_TOPIC}.dlq` },
    {
      partitions,
      used: ['create', 'replies'],
      startUp: startUpWithin(STARTUP_TIMEOUT_MS, createLogger('bench', 'warn')),
    },
  );
}

/** NestJS writers and gateways, as a NestJS user would run them: `node dist/main.js <role>`. */
export async function startNestjs(
  { brokers, logDir }: NestjsOptions,
  env: NodeJS.ProcessEnv,
  counts: { writers: number; gateways: number },
): Promise<{ services: ServerProcess[]; urls: string[] }> {
  const start = (name: string, role: string, extra: NodeJS.ProcessEnv = {}) =>
    startServerProcess({
      name,
      command: process.execPath,
      args: [join(PACKAGE, 'dist', 'main.js'), role],
      env: { ...env, ...extra, KAFKA_BROKERS: brokers, KAFKA_CREATE_TOPIC: CREATE_TOPIC },
      cwd: PACKAGE,
      logFile: join(logDir, `${name}.log`),
      stopTimeoutMs: 30_000,
    });
  const writers = Array.from({ length: counts.writers }, (_, index) =>
    start(`nestjs-writer-${String(index + 1)}`, 'writer'),
  );
  const gateways: ServerProcess[] = [];
  const urls: string[] = [];
  try {
    for (const writer of writers) {
      await waitUntilReady(
        writer,
        () => groupIsStable({ brokers: brokers.split(',') }, WRITERS_GROUP, writers.length),
        60_000,
      );
    }
    for (let index = 0; index < counts.gateways; index++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${String(port)}`;
      const gateway = start(`nestjs-gateway-${String(index + 1)}`, 'gateway', {
        PORT: String(port),
      });
      gateways.push(gateway);
      await waitUntilReady(gateway, () => httpIsReady(url), 60_000);
      urls.push(url);
    }
  } catch (error) {
    await Promise.all([...gateways, ...writers].map((service) => service.stop()));
    throw error;
  }
  return { services: [...gateways, ...writers], urls };
}
