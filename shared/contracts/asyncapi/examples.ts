import { errorBody } from '../errors.ts';
import { HEADERS } from '../kafka.ts';
import { decodeNewPlant } from '../new-plant.ts';
import { plantOf, type NewPlant } from '../plant.ts';
import type { Reply } from '../reply.ts';

/** Above 2^53: a client that reads ids as doubles turns it into …992 and shows itself. */
export const EXAMPLE_ID = 9007199254740993n;

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

interface MessageExample {
  name: string;
  summary: string;
  headers: Record<string, string>;
  payload: unknown;
}

interface Case {
  name: string;
  summary: string;
  /** A NewPlant, or the bytes of a command the writer refuses (as text). */
  command: NewPlant | string;
  reply: Reply;
}

function cases(): Case[] {
  const plant: NewPlant = { id: EXAMPLE_ID, name: 'Monstera', tag: 'aroid' };
  const renamed: NewPlant = { id: EXAMPLE_ID, name: 'Monstera deliciosa' };
  const id = String(EXAMPLE_ID);
  return [
    {
      name: 'created',
      summary: 'A new id: stored and answered 200 (the same content again is answered 200 again)',
      command: plant,
      reply: { status: 200, plant: plantOf(plant) },
    },
    {
      name: 'conflicting',
      summary: 'The same id with another name or tag: answered 400/4009, nothing stored',
      command: renamed,
      reply: {
        status: 400,
        // The writer's wording; the test that replays this example fails when they part.
        error: errorBody(
          'conflictingPlant',
          `A plant with id ${id} already exists with a different name or tag`,
        ),
      },
    },
    refused(
      'notNewPlant',
      'JSON but not a NewPlant (an id as a string)',
      `{"id": "${id}", "name": "Monstera"}`,
    ),
    refused('notJson', 'Not JSON (cut short)', `{"id": ${id}, "name": "Monstera"`),
  ];
}

/** What the writer's own decoder answers for these bytes, so the example cannot drift from it. */
function refused(name: string, summary: string, bytes: string): Case {
  const checked = decodeNewPlant(Buffer.from(bytes));
  if (checked.ok) throw new Error(`The refused example is a valid command: ${bytes}`);
  return {
    name,
    summary: `${summary}: answered 400/${String(checked.error.error)} and copied to the DLQ`,
    command: bytes,
    reply: { status: 400, error: checked.error },
  };
}

/**
 * The examples of the contract, one correlation id per case: commands (valid ones as create
 * commands, refused ones as the dead letters they become) and the reply each gets.
 */
export function kafkaExamples(replyTopic: string) {
  const commands: MessageExample[] = [];
  const replies: MessageExample[] = [];
  const deadLetters: MessageExample[] = [];
  cases().forEach(({ name, summary, command, reply }, index) => {
    const correlationId = `6f1c2a40-3b7e-4d2a-9c55-00000000000${String(index + 1)}`;
    const headers = {
      [HEADERS.correlationId]: correlationId,
      [HEADERS.replyTopic]: replyTopic,
      [HEADERS.replyPartition]: '0',
      [HEADERS.contentType]: 'application/json',
      [HEADERS.requestId]: `example-${name}`,
      traceparent: TRACEPARENT,
    };
    replies.push({
      name,
      summary,
      headers: {
        [HEADERS.correlationId]: correlationId,
        [HEADERS.contentType]: 'application/json',
        [HEADERS.nestIsDisposed]: '1',
      },
      payload: reply,
    });
    if (typeof command !== 'string') commands.push({ name, summary, headers, payload: command });
    else if (reply.status === 400) {
      deadLetters.push({
        name,
        summary,
        headers: {
          ...headers,
          [HEADERS.errorCode]: String(reply.error.error),
          [HEADERS.errorMessage]: reply.error.message,
        },
        payload: command,
      });
    }
  });
  return { commands, replies, deadLetters };
}
