import type { IHeaders, KafkaMessage } from 'kafkajs';
import type { Topics } from '#shared/contracts/kafka.ts';
import type { Checked } from '#shared/contracts/new-plant.ts';
import type { Reply } from '#shared/contracts/reply.ts';
import type { Outgoing, Refusals } from './outgoing.ts';
import { givenUpReplyCopy, invalidCommandCopy, replyMessage } from './answer-messages.ts';
import { replyRoute, type GivenUpReason } from './reply-route.ts';

/** A command as the writer read it: its bytes checked against the contract. */
export interface DecodedCommand {
  command: KafkaMessage;
  checked: Checked;
  /** Its span's trace headers, carried by its reply. */
  trace: IHeaders;
}

/** Where a command's reply goes. */
type Delivery =
  /** The command asked for no reply (fire-and-forget). */
  | { kind: 'none' }
  | { kind: 'reply'; message: Outgoing }
  /** Refused before sending (a bad address), or by Kafka after its bounded retry. */
  | { kind: 'givenUp'; topic: string; reason: GivenUpReason; detail: string };

/** What one command gets back, from the decision to the send. */
export interface Answer {
  command: KafkaMessage;
  /** Invalid commands are dead-lettered, and answered 4000/4001. */
  checked: Checked;
  /** The plant stored, a conflict, or why the command is invalid. */
  reply: Reply;
  delivery: Delivery;
  /** Copies of the command on the DLQ: as received when invalid, and when its reply was given up. */
  copies: Outgoing[];
}

/**
 * What each command of a batch gets, in the order of the commands: `stored` is the store's
 * outcome for the valid ones, in their order. An invalid command gets its 4000/4001 as a reply
 * and a copy on the DLQ; a reply whose address the writer refuses is given up at once, its
 * command copied to the DLQ.
 */
export function planAnswers(
  commands: readonly DecodedCommand[],
  stored: readonly Reply[],
  topics: Pick<Topics, 'create' | 'dlq'>,
): Answer[] {
  const valid = commands.filter(({ checked }) => checked.ok).length;
  if (stored.length !== valid) {
    throw new Error(`the store answered ${String(stored.length)} of ${String(valid)} plants`);
  }
  let nextStored = 0;
  return commands.map(({ command, checked, trace }) => {
    const reply = checked.ok
      ? (stored[nextStored++] as Reply)
      : ({ status: 400, error: checked.error } as const);
    const answer = { command, checked, reply };
    const copies = checked.ok ? [] : [invalidCommandCopy(command, topics.dlq, checked.error)];
    const route = replyRoute(command.headers, topics);
    if (route.kind === 'none') return { ...answer, delivery: route, copies };
    if (route.kind === 'reply') {
      const message = replyMessage(command, reply, route, trace);
      return { ...answer, delivery: { kind: 'reply', message }, copies };
    }
    const { topic, reason, detail } = route;
    return {
      ...answer,
      delivery: { kind: 'givenUp', topic, reason, detail },
      copies: [...copies, givenUpReplyCopy(command, topics.dlq, route)],
    };
  });
}

/** The messages a plan sends at once: every reply and every copy it knows of. */
export function messagesOf(answers: readonly Answer[]): Outgoing[] {
  return answers.flatMap(({ delivery, copies }) =>
    delivery.kind === 'reply' ? [delivery.message, ...copies] : copies,
  );
}

/**
 * The answers once sent: a reply Kafka refused is given up, with why, and its command copied to
 * the DLQ. `copies` are those new copies, still to send.
 */
export function settleAnswers(
  answers: readonly Answer[],
  refused: Refusals,
  dlq: string,
): { answers: Answer[]; copies: Outgoing[] } {
  const copies: Outgoing[] = [];
  const settled = answers.map((answer): Answer => {
    const { delivery, command } = answer;
    const error = delivery.kind === 'reply' ? refused.get(delivery.message) : undefined;
    if (delivery.kind !== 'reply' || error === undefined) return answer;
    const givenUp = {
      kind: 'givenUp',
      topic: delivery.message.topic,
      reason: 'send_failed',
      detail: error.message,
    } as const;
    const copy = givenUpReplyCopy(command, dlq, givenUp);
    copies.push(copy);
    return { ...answer, delivery: givenUp, copies: [...answer.copies, copy] };
  });
  return { answers: settled, copies };
}
