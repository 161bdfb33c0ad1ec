import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { WRITER_GROUP } from '#shared/contracts/kafka.ts';
import { GATEWAY_MAIN, startNodeService, WRITER_MAIN } from './process/node-service.ts';
import { kafkaConnectionFromEnv } from '#shared/service-settings.ts';
import { commandLine, EXIT_CODES, readFlags } from '#tooling/cli/command-line.ts';
import { brokerCount } from './kafka/broker-count.ts';
import { consecutiveNodePorts } from './kafka/node-ports.ts';
import { stopServersOfKilledLaunchers } from './process/orphans.ts';
import { stackDir } from './provision/paths.ts';
import { assertPortFree, freePort } from './provision/ports.ts';
import { groupIsStable } from './kafka/group-stability.ts';
import { httpIsReady } from './process/http-ready.ts';
import { serviceConnections } from './secure-stack.ts';
import { STACK_FLAGS } from './stack-flags.ts';
import { startLocalStack, type LocalStack } from './stack.ts';
import { stopOnSignal } from './process/stop-on-signal.ts';
import { waitUntilReady } from './process/wait-until-ready.ts';

export const USAGE = `npm start -- [flags]
  --secure              Kafka on SASL_SSL with ACLs, the store on TLS
  --brokers 1           1, or 3 for a replicated cluster (ports 9092, 9094, 9096)
  --dir .local/start    the servers' data and logs (.local/start-secure with --secure,
                        .local/start-3-brokers with --brokers 3); reusing one keeps the data
  --help                this text
PORT (3000), AUTH_TOKENS, METRICS_PORT; KAFKA_BROKERS and MONGODB_URI, when both are set,
replace the local servers.`;

interface StartOptions {
  dir: string;
  secure: boolean;
  brokers: number;
}

/** `npm start` flags, checked; `'help'` for --help. */
function startOptions(args: string[]): StartOptions | 'help' {
  const flags = readFlags({
    args,
    options: STACK_FLAGS,
  });
  if (flags === 'help') return 'help';
  const { values } = flags;
  const brokers = brokerCount(values.brokers);
  const dir = values.dir ?? stackDir('start', { secure: values.secure, brokers });
  return { dir, secure: values.secure, brokers };
}

/**
 * `npm start` with the flags `argv`: runs until Ctrl-C, or exits 1 (with the error's message) when
 * the store could not start or a service stopped; a refused flag exits 2 before anything starts.
 */
export async function main(argv: string[]): Promise<void> {
  const options = commandLine(USAGE, () => startOptions(argv));
  try {
    await runStore(options);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(EXIT_CODES.failed);
  }
}

async function runStore({ dir, secure, brokers }: StartOptions): Promise<void> {
  const logDir = join(dir, 'logs');
  const port = Number(process.env.PORT || 3000);
  const givenTokens = process.env.AUTH_TOKENS || undefined;
  // A gateway or server that a killed `npm start` left running would hold the ports checked here.
  await stopServersOfKilledLaunchers();
  const hint = 'Is `npm start` or `npm run infra` already running? Stop it, or set PORT.';
  await assertPortFree(port, hint);
  const stack = await serversFromEnvironmentOr({ secure, logDir }, async () => {
    const kafkaPorts = consecutiveNodePorts({ port: 9092, controllerPort: 9093 }, brokers);
    const serversHint =
      'Is `npm run infra` or another Kafka/MongoDB running? Stop it, or set KAFKA_BROKERS and MONGODB_URI to use it.';
    for (const taken of [
      ...kafkaPorts.flatMap(({ port, controllerPort }) => [port, controllerPort]),
      27017,
    ])
      await assertPortFree(taken, serversHint);
    console.log(
      'Starting Kafka and the MongoDB-protocol server (the first start provisions them)…',
    );
    return startLocalStack({ dir, kafkaPorts, mongoPort: 27017, secure });
  });
  const token = givenTokens ?? `dev-${randomBytes(18).toString('base64url')}`;
  const env = { ...process.env, AUTH_TOKENS: token, PORT: String(port) };
  const metricsPort = process.env.METRICS_PORT ?? String(await freePort());
  const connections = await serviceConnections(stack);
  const writerEnv = { ...env, ...connections.writer, METRICS_PORT: metricsPort };
  const writer = startNodeService({ name: 'writer', script: WRITER_MAIN, env: writerEnv, logDir });
  const gateway = startNodeService({
    name: 'gateway',
    script: GATEWAY_MAIN,
    env: { ...env, ...connections.gateway },
    logDir,
  });
  const services = [writer, gateway];
  const stopAll = async () => {
    await gateway.stop();
    await writer.stop();
    await stack.stop();
  };
  const stopping = stopOnSignal('the gateway, the writer and the servers', stopAll);

  try {
    const writerConnection = kafkaConnectionFromEnv(writerEnv);
    const group = process.env.KAFKA_WRITER_GROUP ?? WRITER_GROUP;
    await waitUntilReady(writer, () => groupIsStable(writerConnection, group), 60_000);
    await waitUntilReady(gateway, () => httpIsReady(`http://127.0.0.1:${port}`), 60_000);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
  console.log(
    [
      `Plant store ready at ${url}`,
      givenTokens ? 'Token: one of AUTH_TOKENS' : `Development token: ${token}`,
      `Try: curl -s -X POST ${url}/plants -H "Authorization: Bearer ${givenTokens ? '<token>' : token}" -H 'Content-Type: application/json' -d '{"id": 1, "name": "Monstera", "tag": "aroid"}'`,
      `Metrics: ${url}/metrics (gateway), http://127.0.0.1:${metricsPort}/metrics (writer)`,
      ...(stack.secured === undefined
        ? []
        : [
            `Kafka on SASL_SSL with ACLs; each principal's settings: ${Object.values(stack.secured.envFiles).join(', ')}`,
          ]),
      `Logs: ${logDir} (gateway.log, writer.log${stack.logDir === logDir ? ', kafka.log, mongo.log' : ''})`,
      'Ctrl-C stops everything.',
    ].join('\n'),
  );
  await Promise.race(services.map((service) => service.exited));
  if (stopping.requested) return;
  console.error(`A service exited unexpectedly; see the logs in ${logDir}`);
  await stopAll();
  process.exitCode = EXIT_CODES.failed;
}

type Servers = Pick<LocalStack, 'kafkaBrokers' | 'mongoUri' | 'logDir' | 'stop' | 'secured'>;

async function serversFromEnvironmentOr(
  { secure, logDir }: { secure: boolean; logDir: string },
  startLocal: () => Promise<Servers>,
): Promise<Servers> {
  const { KAFKA_BROKERS, MONGODB_URI } = process.env;
  if (KAFKA_BROKERS && MONGODB_URI) {
    if (secure)
      throw new Error(
        '--secure starts a secured local stack, but KAFKA_BROKERS and MONGODB_URI name servers of your own: drop --secure and set KAFKA_SSL, KAFKA_SASL_* and MONGODB_TLS_CA_FILE for them (docs/security.md).',
      );
    return {
      kafkaBrokers: KAFKA_BROKERS,
      mongoUri: MONGODB_URI,
      logDir,
      stop: () => Promise.resolve(),
    };
  }
  return startLocal();
}
