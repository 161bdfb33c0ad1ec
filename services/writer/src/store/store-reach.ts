import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import type { PlantStore } from './plant-store.ts';

/** Whether the store answers this writer: what its operations have heard back. */
export interface StoreReach {
  /**
   * How long this writer's operations have waited without any answer from the store (0 while it
   * answers or nothing waits). An error the server sent is an answer; a timeout, a refused or
   * dropped connection and a failed server selection are not.
   */
  silentForMs(): number;
  /**
   * While the store answers this writer's inserts with errors of its own (a full disk: "No space
   * left on device"), none stored since the first: for how long, and the latest error's message.
   * Undefined once one is stored. It answers, so this is no silence; but nothing is stored.
   */
  refusal(): { forMs: number; message: string } | undefined;
  /** Asks the store for a ping: whether it answered, counted like any other operation. */
  probe(): Promise<boolean>;
}

/** `store`, its operations counted in `StoreReach`; `ping` is what a probe sends. */
export function reachOf(
  store: PlantStore,
  ping: () => Promise<unknown>,
  now: () => number = Date.now,
): { store: PlantStore; reach: StoreReach } {
  let pending = 0;
  /** Since when operations have waited, unanswered; undefined while nothing waits unanswered. */
  let waitingSince: number | undefined;
  let refused: { since: number; message: string } | undefined;
  const answered = () => {
    waitingSince = pending > 0 ? now() : undefined;
  };
  const counted =
    <A, R>(operation: (argument: A) => Promise<R>, writes = false) =>
    async (argument: A): Promise<R> => {
      pending++;
      waitingSince ??= now();
      try {
        const result = await operation(argument);
        pending--;
        answered();
        if (writes) refused = undefined;
        return result;
      } catch (error) {
        pending--;
        if (sentByTheServer(error)) {
          answered();
          if (writes) refused = { since: refused?.since ?? now(), message: error.message };
        }
        throw error;
      }
    };
  return {
    store: {
      insertNew: counted((plants) => store.insertNew(plants), true),
      findByIdAndName: counted((keys) => store.findByIdAndName(keys)),
    },
    reach: {
      silentForMs: () => (waitingSince === undefined ? 0 : now() - waitingSince),
      refusal: () =>
        refused === undefined
          ? undefined
          : { forMs: now() - refused.since, message: refused.message },
      probe: () =>
        counted(ping)(undefined).then(
          () => true,
          () => false,
        ),
    },
  };
}

/**
 * Whether the server sent `error`. An insert whose connection was lost or timed out fails as a
 * MongoBulkWriteError too, a kind of MongoServerError, but with neither a write error nor a code
 * of the server's; an insert the server failed as a whole (FerretDB's InternalError over
 * PostgreSQL's "No space left on device") has its code and no write error.
 */
function sentByTheServer(error: unknown): error is MongoServerError {
  if (error instanceof MongoBulkWriteError)
    return [error.writeErrors].flat().length > 0 || typeof error.code === 'number';
  return error instanceof MongoServerError;
}
