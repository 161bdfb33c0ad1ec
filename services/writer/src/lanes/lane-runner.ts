import type { Consumer, KafkaMessage } from 'kafkajs';
import type { Logger } from '#shared/logger.ts';
import { RETRY_MS } from '../answering/until-it-succeeds.ts';
import type { StoreDistance } from '../store/store-distance.ts';
import { earlierSharingKeys } from './key-order.ts';
import { takeCommands, type Taken } from './lane-queue.ts';
import {
  emptyQueue,
  forgetWork,
  resume,
  type Flight,
  type Lane,
  type LaneHandlers,
  type LaneWork,
} from './lane-state.ts';
import { BUSY_LINGER_MS, startsIn } from './lane-tuning.ts';

/** What every lane shares: the heap their queues take, the works not settled, the stop. */
export interface LanesShared {
  /** The heap the commands queued on every lane take, as counted by heapBytes. */
  queuedBytes: number;
  /** Every work not settled yet, those of lanes dropped since included: stop waits for them. */
  readonly unsettled: Set<Promise<boolean>>;
  readonly stopping: AbortSignal;
}

/** Empties the lane's queue and lets those waiting for what it held go on. */
export function release(shared: LanesShared, lane: Lane): void {
  for (const { bytes, done } of emptyQueue(lane)) {
    shared.queuedBytes -= bytes;
    done();
  }
}

/** Forgets the lane's work in hand and empties its queue. */
export function drop(shared: LanesShared, lane: Lane): void {
  forgetWork(lane);
  release(shared, lane);
}

/** Moves the partition's next fetch to `offset`; a refusal (the partition went away) is logged. */
export function seek(
  consumer: Pick<Consumer, 'seek'>,
  logger: Logger,
  lane: Lane,
  offset: string,
): void {
  const { topic, partition } = lane;
  try {
    consumer.seek({ topic, partition, offset });
  } catch (error) {
    logger.warn({ err: error, topic, partition }, 'seeking the partition failed');
  }
}

/** A flight for the commands taken, and how to settle it. */
function newFlight(lane: Lane, { messages, payload }: Taken, now: number, stopping: AbortSignal) {
  const work: LaneWork = {
    topic: lane.topic,
    partition: lane.partition,
    messages,
    payload,
    stopping,
    givenAway: lane.owned.signal,
  };
  let settle: (answered: boolean) => void = () => undefined;
  const flight: Flight = {
    work,
    startedAt: now,
    state: 'answering',
    settled: new Promise((resolve) => (settle = resolve)),
  };
  return { flight, settle };
}

/** Hands the lane's answered works, oldest first, to `answered` up to the first one that is not. */
function handOnAnswered(lane: Lane, handlers: LaneHandlers): void {
  while (lane.flights[0]?.state === 'answered') {
    const [first] = lane.flights.splice(0, 1);
    if (first !== undefined) handlers.answered(first.work);
  }
}

/**
 * What takes works off a lane's queue once it may, answers them beside or after one another and
 * hands them on in order; after a failure, it reads the partition again from there
 * (partition-lanes.ts).
 */
export function lanePump(
  shared: LanesShared,
  consumer: Pick<Consumer, 'seek'>,
  handlers: LaneHandlers,
  logger: Logger,
  storeDistance: StoreDistance,
): (lane: Lane) => void {
  const keyOf = (message: KafkaMessage) => handlers.keyOf(message);

  /**
   * Once every work in hand has settled after a failure: drops what is queued and seeks the
   * partition back to the first command of the first work that failed; kafkajs then drops what it
   * fetched past it (`isStale`), and reads from there once the partition is resumed, RETRY_MS
   * later, so that a failure that repeats does not spin.
   */
  const readAgainFromFailure = (lane: Lane, failed: Flight) => {
    const first = failed.work.messages[0]?.offset;
    if (shared.stopping.aborted || first === undefined) return;
    drop(shared, lane);
    logger.error(
      { err: failed.error, topic: lane.topic, partition: lane.partition, offset: first },
      'commands failed: their partition is read again from the first of them',
    );
    seek(consumer, logger, lane, first);
    setTimeout(failed.work.payload.pause(), RETRY_MS);
  };

  const pump = (lane: Lane) => {
    clearTimeout(lane.wake);
    lane.wake = undefined;
    while (!shared.stopping.aborted && lane.queue.length > 0) {
      const now = Date.now();
      const wait = startsIn(lane, now, storeDistance);
      if (wait === Infinity) return;
      if (wait > 0) {
        lane.wake = setTimeout(() => {
          pump(lane);
        }, wait);
        return;
      }
      take(lane, now);
    }
  };

  const take = (lane: Lane, now: number) => {
    const taken = takeCommands(lane.queue);
    if (lane.queue.length === 0) resume(lane);
    if (taken === undefined) return;
    for (const { bytes } of taken.finished) shared.queuedBytes -= bytes;
    const { flight, settle } = newFlight(lane, taken, now, shared.stopping);
    const before = earlierSharingKeys(lane.flights, flight, keyOf);
    lane.flights.push(flight);
    shared.unsettled.add(flight.settled);
    const dropped = lane.dropped.signal;
    void (async () => {
      let failure: { error: unknown } | undefined;
      try {
        const outcomes = await Promise.all(before.map(({ settled }) => settled));
        if (outcomes.includes(false))
          throw new Error('an earlier command of the same key was not answered');
        await handlers.answer(flight.work);
      } catch (error) {
        failure = { error };
      }
      if (!dropped.aborted) landed(lane, flight, failure);
      shared.unsettled.delete(flight.settled);
      settle(failure === undefined);
      for (const { done } of taken.finished) done();
    })();
  };

  /** A work of the lane settled: hands on what is answered in order, then takes more. */
  const landed = (lane: Lane, flight: Flight, failure: { error: unknown } | undefined) => {
    flight.state = failure === undefined ? 'answered' : 'failed';
    flight.error = failure?.error;
    if (failure === undefined && flight.work.messages.length > 1)
      lane.lingerUntil = Date.now() + BUSY_LINGER_MS;
    handOnAnswered(lane, handlers);
    const [first] = lane.flights;
    if (first?.state === 'failed' && lane.flights.every(({ state }) => state !== 'answering')) {
      readAgainFromFailure(lane, first);
      return;
    }
    pump(lane);
  };

  return pump;
}
