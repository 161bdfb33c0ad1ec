import { startNodeService } from '#local/process/node-service.ts';
import { freePort } from '#local/provision/ports.ts';
import { httpIsReady } from '#local/process/http-ready.ts';
import type { ServerProcess } from '#local/process/server-process.ts';
import { startServices } from '#local/services.ts';
import { waitUntilReady } from '#local/process/wait-until-ready.ts';
import type { BenchRun } from '../bench-run.ts';
import { prepareNestjs, startNestjs, type NestjsOptions } from './nestjs-variant.ts';
import type { Variant } from '../options.ts';

export interface StartedVariant {
  services: ServerProcess[];
  /** Where the load goes: one URL per gateway. */
  urls: string[];
}

/** What a variant needs before its first start: the nestjs package built and its topics made. */
export async function prepareVariants(run: BenchRun): Promise<void> {
  if (run.options.variants.includes('nestjs')) await prepareNestjs(nestjsOptions(run));
}

/** A variant's processes, each ready; `extraEnv` on top of the environment they all get. */
export async function startVariant(
  run: BenchRun,
  variant: Variant,
  extraEnv: NodeJS.ProcessEnv,
): Promise<StartedVariant> {
  const { options, stack, logDir, store } = run;
  const env = {
    ...process.env,
    ...extraEnv,
    AUTH_TOKENS: run.token,
    MONGODB_URI: store.reach(stack.mongoUri),
    KAFKA_PARTITIONS: String(options.partitions),
    LOG_LEVEL: options.logLevel,
  };
  const counts = { writers: options.writers, gateways: options.gateways };
  if (variant === 'nestjs') return startNestjs(nestjsOptions(run), env, counts);
  if (variant === 'e2e') {
    const { writers, gateways, urls } = await startServices({
      env,
      connections: await store.connections(),
      logDir,
      ...counts,
    });
    return { services: [...gateways, ...writers], urls };
  }
  const { server, url } = await startServerVariant(variant, env, logDir);
  await waitUntilReady(server, () => httpIsReady(url), 30_000);
  return { services: [server], urls: [url] };
}

/**
 * The one process of a variant that is a single HTTP server (bare, ceiling, direct) on a free
 * port, started but not yet ready.
 */
export async function startServerVariant(
  variant: Exclude<Variant, 'e2e' | 'nestjs'>,
  env: NodeJS.ProcessEnv,
  logDir: string,
): Promise<{ server: ServerProcess; url: string }> {
  const port = await freePort();
  const server = startNodeService({
    name: variant,
    script: variant === 'bare' ? 'bench/variants/bare.ts' : 'bench/variants/baseline.ts',
    args: variant === 'bare' ? [] : [variant],
    env: { ...env, PORT: String(port) },
    logDir,
  });
  return { server, url: `http://127.0.0.1:${String(port)}` };
}

function nestjsOptions({ stack, options, logDir }: BenchRun): NestjsOptions {
  return { brokers: stack.kafka.brokers, partitions: options.partitions, logDir };
}
