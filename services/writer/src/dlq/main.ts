// `npm run dlq -- list|replay [--error CODE] [--since ISO-8601] [--yes]`: the dead-letter topic,
// read without moving anyone's offsets, and replayed as create commands once their cause is fixed.
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import Type from 'typebox';
import { configOrExit, exitOnConfigError, failOn, readConfig } from '#shared/config.ts';
import { sharedSettings, topicsOf } from '#shared/service-settings.ts';
import { checkKafkaAccess } from '#shared/kafka/access.ts';
import { kafkaClient } from '#shared/kafka/client.ts';
import { kafkaConnectionOf } from '#shared/kafka/connection.ts';
import { createLogger } from '#shared/logger.ts';
import { readDeadLetters, replayDeadLetters, type DeadLetter } from './dead-letters.ts';

const USAGE = 'npm run dlq -- list|replay [--error CODE] [--since ISO-8601] [--yes]';

interface DlqArguments {
  action: 'list' | 'replay';
  error: number | undefined;
  since: Date | undefined;
  yes: boolean;
}

/** The command line, checked: throws an error naming what is wrong with it. */
function dlqArguments(args: string[]): DlqArguments {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      error: { type: 'string' },
      since: { type: 'string' },
      yes: { type: 'boolean', default: false },
    },
  });
  const [action, ...extra] = positionals;
  if ((action !== 'list' && action !== 'replay') || extra.length > 0)
    throw new Error(
      `one action is needed, list or replay; got ${positionals.length === 0 ? 'none' : `"${positionals.join(' ')}"`}`,
    );
  const error = values.error === undefined ? undefined : Number(values.error);
  if (error !== undefined && !Number.isInteger(error))
    throw new Error(`--error takes an error code, a whole number; got "${String(values.error)}"`);
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (since !== undefined && Number.isNaN(since.getTime()))
    throw new Error(`--since takes an ISO-8601 time; got "${String(values.since)}"`);
  return { action, error, since, yes: values.yes };
}

let command: DlqArguments;
try {
  command = dlqArguments(process.argv.slice(2));
} catch (refused) {
  // Exits before any client is made, as every tool of the project does on a refused command line.
  console.error(
    `${refused instanceof Error ? refused.message : String(refused)}\n\nusage: ${USAGE}`,
  );
  process.exit(2);
}
const { action, error, since, yes } = command;

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
} else if (!yes) {
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
