// `npm run dlq -- list|replay [--error CODE] [--since ISO-8601] [--yes]`: the dead-letter topic,
// read without moving anyone's offsets, and replayed as create commands once their cause is fixed.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import Type from 'typebox';
import {
  configOrExit,
  exitOnConfigError,
  failOn,
  readConfig,
  sharedSettings,
  topicsOf,
} from '#shared/config.ts';
import { checkKafkaAccess } from '#shared/kafka-access.ts';
import { kafkaClient } from '#shared/kafka-client.ts';
import { kafkaConnectionOf } from '#shared/kafka-connection.ts';
import { createLogger } from '#shared/logger.ts';
import { readDeadLetters, replayDeadLetters, type DeadLetter } from './dead-letters.ts';

const USAGE = 'npm run dlq -- list|replay [--error CODE] [--since ISO-8601] [--yes]';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    error: { type: 'string' },
    since: { type: 'string' },
    yes: { type: 'boolean', default: false },
  },
});
const [action] = positionals;
const error = values.error === undefined ? undefined : Number(values.error);
const since = values.since === undefined ? undefined : new Date(values.since);
if (
  positionals.length !== 1 ||
  (action !== 'list' && action !== 'replay') ||
  (error !== undefined && !Number.isInteger(error)) ||
  (since !== undefined && Number.isNaN(since.getTime()))
) {
  console.error(`usage: ${USAGE}`);
  process.exit(2);
}

const config = configOrExit(() => {
  const settings = readConfig(Type.Object(sharedSettings));
  const problems: string[] = [];
  const connection = kafkaConnectionOf(settings, problems);
  failOn(problems);
  return { ...settings, connection };
});
await checkKafkaAccess(config.connection).catch(exitOnConfigError);
const topics = topicsOf(config);
// Letters go to stdout; the client's warnings go to stderr, as pino lines.
const kafka = kafkaClient(
  'plant-store-dlq',
  config.connection,
  createLogger('dlq', 'warn', pino.destination(2)),
);
const letters = await readDeadLetters(kafka, topics.dlq, {
  ...(error === undefined ? {} : { error }),
  ...(since === undefined ? {} : { since }),
});
for (const letter of letters) console.log(JSON.stringify(printable(letter)));

if (action === 'list') {
  console.error(`${String(letters.length)} dead letters on ${topics.dlq}`);
} else if (!values.yes) {
  console.error(
    `${String(letters.length)} dead letters would be replayed to ${topics.create}; add --yes to replay them`,
  );
} else {
  await replayDeadLetters(kafka, topics, letters);
  console.error(
    `${String(letters.length)} dead letters replayed to ${topics.create}; those still invalid are dead letters again`,
  );
}

function printable({ raw: _raw, headers, ...letter }: DeadLetter) {
  return {
    ...letter,
    headers: Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [name, String(value)]),
    ),
  };
}
