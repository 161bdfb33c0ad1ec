import { commandLine, EXIT_CODES, readFlags } from '#tooling/cli/command-line.ts';
import { brokerCount } from './kafka/broker-count.ts';
import { consecutiveNodePorts, type KafkaNodePorts } from './kafka/node-ports.ts';
import { stopServersOfKilledLaunchers } from './process/orphans.ts';
import { stackDir } from './provision/paths.ts';
import { assertPortFree } from './provision/ports.ts';
import { STACK_FLAGS } from './stack-flags.ts';
import { startLocalStack } from './stack.ts';
import { stopOnSignal } from './process/stop-on-signal.ts';

export const USAGE =
  'npm run infra -- [--kafka-port 9092] [--mongodb-port 27017] [--dir .local/infra] [--secure (--dir .local/infra-secure)] [--brokers 3 (ports 9092, 9094, 9096; --dir .local/infra-3-brokers)]';

interface InfraOptions {
  dir: string;
  secure: boolean;
  brokers: number;
  kafkaPorts: KafkaNodePorts[];
  mongoPort: number;
}

/** `npm run infra` flags, checked: ports in range, none used twice; `'help'` for --help. */
function infraOptions(args: string[]): InfraOptions | 'help' {
  const flags = readFlags({
    args,
    options: {
      'kafka-port': { type: 'string', default: '9092' },
      'kafka-controller-port': { type: 'string' },
      'mongodb-port': { type: 'string', default: '27017' },
      ...STACK_FLAGS,
    },
  });
  if (flags === 'help') return 'help';
  const { values } = flags;
  const brokers = brokerCount(values.brokers);
  const kafkaPort = port(values['kafka-port'], '--kafka-port');
  const kafkaControllerPort = port(
    values['kafka-controller-port'] ?? String(kafkaPort + 1),
    '--kafka-controller-port',
  );
  const mongoPort = port(values['mongodb-port'], '--mongodb-port');
  const kafkaPorts = consecutiveNodePorts(
    { port: kafkaPort, controllerPort: kafkaControllerPort },
    brokers,
  );
  const taken = portsOf(kafkaPorts, mongoPort);
  const twice = taken.find((each, index) => taken.indexOf(each) !== index);
  if (twice !== undefined) throw new Error(`Port ${String(twice)} would be used twice.`);
  return {
    dir: values.dir ?? stackDir('infra', { secure: values.secure, brokers }),
    secure: values.secure,
    brokers,
    kafkaPorts,
    mongoPort,
  };
}

function portsOf(kafkaPorts: readonly KafkaNodePorts[], mongoPort: number): number[] {
  return [...kafkaPorts.flatMap(({ port, controllerPort }) => [port, controllerPort]), mongoPort];
}

/**
 * `npm run infra` with the flags `argv`: runs until Ctrl-C, or exits 1 (with the error's message)
 * when a server could not start or stopped; a refused flag exits 2 before anything starts.
 */
export async function main(argv: string[]): Promise<void> {
  const options = commandLine(USAGE, () => infraOptions(argv));
  try {
    await runServers(options);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(EXIT_CODES.failed);
  }
}

async function runServers({
  dir,
  secure,
  brokers,
  kafkaPorts,
  mongoPort,
}: InfraOptions): Promise<void> {
  await stopServersOfKilledLaunchers();
  const hint = `Is \`npm run infra\` already running? Choose other ports: ${USAGE}`;
  for (const each of portsOf(kafkaPorts, mongoPort)) await assertPortFree(each, hint);

  console.log('Starting Kafka and the MongoDB-protocol server (the first start provisions them)…');
  const stack = await startLocalStack({
    dir,
    kafkaPorts,
    mongoPort,
    secure,
  });
  console.log(
    [
      ...(stack.secured === undefined
        ? [
            `KAFKA_BROKERS=${stack.kafkaBrokers}`,
            `MONGODB_URI=${stack.mongoUri}   (${stack.mongoServer})`,
          ]
        : [
            `Kafka: SASL_SSL on ${stack.kafkaBrokers}, SCRAM-SHA-512, ACLs (docs/security.md)`,
            `Store: TLS only on 127.0.0.1:${String(stack.ports.mongoPort)} (${stack.mongoServer})`,
            `CA: ${stack.secured.caFile}`,
            `Settings and passwords of each principal: ${Object.values(stack.secured.envFiles).join(', ')}`,
          ]),
      ...(brokers === 1
        ? []
        : [
            `${String(brokers)} Kafka nodes, each a broker and a controller: topics replicated 3 times, min.insync.replicas 2`,
          ]),
      `Logs: ${stack.logDir}`,
      'Ctrl-C stops both.',
    ].join('\n'),
  );
  const stopping = stopOnSignal('Kafka and the MongoDB-protocol server', () => stack.stop());
  await Promise.race([stack.kafka.exited, stack.mongo.process.exited]);
  if (stopping.requested) return;
  console.error(`A server exited unexpectedly; see the logs in ${stack.logDir}`);
  await stack.stop();
  process.exitCode = EXIT_CODES.failed;
}

function port(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535) {
    throw new Error(`${flag} must be a port number (1–65535), got "${value}"`);
  }
  return parsed;
}
