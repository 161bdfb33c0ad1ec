import { randomUUID } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import type { NewPlant } from '#shared/contracts/plant.ts';
import type { Reply } from '#shared/contracts/reply.ts';
import type { ConcurrencyLimit } from './admission/concurrency-limit.ts';
import type { CommandPublisher } from './kafka/command-publisher.ts';
import { TIMED_OUT, type ReplyWaiter } from './kafka/reply-waiter.ts';

/** The request's own logger, which carries its request id. */
interface RequestLog {
  debug(details: object, message: string): void;
}

interface CreateRequest {
  id: string;
  log: RequestLog;
  /** The request's trace context: the command is sent in a span of it. */
  trace: Context;
}

/** What became of a create: a writer's answer, or why there is none. */
export type CreateOutcome =
  | { kind: 'answered'; reply: Reply }
  /** `waiting` requests, the admission limit, already wait for writers: refused rather than queued. */
  | { kind: 'busy'; waiting: number }
  /** Kafka did not take the command; nothing was published. */
  | { kind: 'unpublished'; cause: unknown }
  /** No writer answered within `afterMs`, or the publish was still under way: the outcome is unknown. */
  | { kind: 'timedOut'; afterMs: number };

export type CreatePlant = (plant: NewPlant, request: CreateRequest) => Promise<CreateOutcome>;

export interface CreatePlantDeps {
  publisher: CommandPublisher;
  waiter: ReplyWaiter;
  replyTimeoutMs: number;
  /** How many creates may wait for writers at once; more are refused rather than queued. */
  admission: ConcurrencyLimit;
}

/**
 * Admits the create within the limit, publishes its command and waits for a writer's answer,
 * never past the reply deadline; the outcome teaches the limit.
 */
export function createPlantOverKafka(deps: CreatePlantDeps): CreatePlant {
  return admitted(deps.admission, (plant, request) => publishAndWait(deps, plant, request));
}

/**
 * `createPlant` within the admission limit: busy when full, and each outcome teaches the limit.
 * @public Exported because the bench and chaos put their own creates behind the shipped admission limit.
 */
export function admitted(admission: ConcurrencyLimit, createPlant: CreatePlant): CreatePlant {
  return async (plant, request) => {
    const leave = admission.enter();
    if (leave === undefined) return { kind: 'busy', waiting: admission.limit };
    let answered = false;
    try {
      const outcome = await createPlant(plant, request);
      answered = outcome.kind === 'answered';
      return outcome;
    } finally {
      leave(answered);
    }
  };
}

async function publishAndWait(
  deps: CreatePlantDeps,
  plant: NewPlant,
  request: CreateRequest,
): Promise<CreateOutcome> {
  const timedOut: CreateOutcome = { kind: 'timedOut', afterMs: deps.replyTimeoutMs };
  const correlationId = randomUUID();
  const reply = deps.waiter.waitFor(correlationId, deps.replyTimeoutMs);
  let publishing = true;
  const published = deps.publisher
    .publish({
      plant,
      correlationId,
      requestId: request.id,
      trace: request.trace,
      deadline: Date.now() + deps.replyTimeoutMs,
    })
    .then(
      async (): Promise<CreateOutcome> => {
        publishing = false;
        request.log.debug(
          { correlationId, plantId: plant.id.toString() },
          'create command published',
        );
        const answer = await reply;
        return answer === TIMED_OUT ? timedOut : { kind: 'answered', reply: answer };
      },
      (cause: unknown): CreateOutcome => {
        publishing = false;
        deps.waiter.cancel(correlationId);
        return { kind: 'unpublished', cause };
      },
    );
  // A writer may answer before the broker acknowledges the send (its answer was lost), and a
  // publish still under way at the deadline (kafkajs reconnecting) may yet go out.
  const settled = reply.then((answer): CreateOutcome | Promise<CreateOutcome> => {
    if (answer !== TIMED_OUT) return { kind: 'answered', reply: answer };
    return publishing ? timedOut : published;
  });
  return Promise.race([published, settled]);
}
