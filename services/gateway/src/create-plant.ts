import { randomUUID } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import type { NewPlant } from '../../../shared/contracts/plant.ts';
import type { Reply } from '../../../shared/contracts/reply.ts';
import type { CommandPublisher } from './command-publisher.ts';
import { TIMED_OUT, type ReplyWaiter } from './reply-waiter.ts';

/** The request's own logger, which carries its request id. */
export interface RequestLog {
  debug(details: object, message: string): void;
}

export interface CreateRequest {
  id: string;
  log: RequestLog;
  /** The request's trace context: the command is sent in a span of it. */
  trace: Context;
}

/** What became of a create: a writer's answer, or why there is none. */
export type CreateOutcome =
  | { kind: 'answered'; reply: Reply }
  /** `waiting` requests already wait for writers: refused rather than queued. */
  | { kind: 'busy'; waiting: number }
  /** Kafka did not take the command; nothing was published. */
  | { kind: 'unpublished'; cause: unknown }
  /** Published, but no writer answered within `afterMs`: the outcome is unknown. */
  | { kind: 'timedOut'; afterMs: number };

export type CreatePlant = (plant: NewPlant, request: CreateRequest) => Promise<CreateOutcome>;

export interface CreatePlantDeps {
  publisher: CommandPublisher;
  waiter: ReplyWaiter;
  replyTimeoutMs: number;
  /** Requests that may wait for a writer at once; more are refused rather than queued. */
  maxInFlight: number;
}

/** Publishes the create command and waits for a writer's answer. */
export function createPlantOverKafka(deps: CreatePlantDeps): CreatePlant {
  return async (plant, request) => {
    if (deps.waiter.waiting >= deps.maxInFlight) return { kind: 'busy', waiting: deps.maxInFlight };
    const correlationId = randomUUID();
    const reply = deps.waiter.waitFor(correlationId, deps.replyTimeoutMs);
    try {
      await deps.publisher.publish({
        plant,
        correlationId,
        requestId: request.id,
        trace: request.trace,
        deadline: Date.now() + deps.replyTimeoutMs,
      });
    } catch (cause) {
      deps.waiter.cancel(correlationId);
      return { kind: 'unpublished', cause };
    }
    request.log.debug({ correlationId, plantId: plant.id.toString() }, 'create command published');
    const answer = await reply;
    return answer === TIMED_OUT
      ? { kind: 'timedOut', afterMs: deps.replyTimeoutMs }
      : { kind: 'answered', reply: answer };
  };
}
