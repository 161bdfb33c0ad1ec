import { randomUUID } from 'node:crypto';
import type { Context } from '@opentelemetry/api';
import type { Counter } from 'prom-client';
import type { NewPlant } from '../../../shared/contracts/plant.ts';
import type { Reply } from '../../../shared/contracts/reply.ts';
import { ApiError } from './api-error.ts';
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

export interface CreatePlantDeps {
  publisher: CommandPublisher;
  waiter: ReplyWaiter;
  replyTimeoutMs: number;
  /** Requests that may wait for a writer at once; more are refused rather than queued. */
  maxInFlight: number;
  replyTimeouts: Counter;
}

/** Publishes the create command and waits for a writer's answer, which is the HTTP answer. */
export async function createPlant(
  plant: NewPlant,
  request: CreateRequest,
  deps: CreatePlantDeps,
): Promise<Reply> {
  if (deps.waiter.waiting >= deps.maxInFlight) {
    throw new ApiError(
      'unavailable',
      `${deps.maxInFlight} requests are already waiting for writers; retry shortly`,
      { headers: { 'retry-after': '1' } },
    );
  }
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
  } catch (error) {
    deps.waiter.cancel(correlationId);
    throw new ApiError('unavailable', 'Kafka cannot take the command now; retry shortly', {
      cause: error,
      headers: { 'retry-after': '1' },
    });
  }
  request.log.debug({ correlationId, plantId: plant.id.toString() }, 'create command published');
  const outcome = await reply;
  if (outcome === TIMED_OUT) {
    deps.replyTimeouts.inc();
    throw new ApiError(
      'replyTimeout',
      `No writer answered within ${deps.replyTimeoutMs} ms; the outcome is unknown and an identical retry is safe`,
    );
  }
  return outcome;
}
