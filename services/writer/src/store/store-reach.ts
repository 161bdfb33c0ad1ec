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
  const answered = () => {
    waitingSince = pending > 0 ? now() : undefined;
  };
  const counted =
    <A, R>(operation: (argument: A) => Promise<R>) =>
    async (argument: A): Promise<R> => {
      pending++;
      waitingSince ??= now();
      try {
        const result = await operation(argument);
        pending--;
        answered();
        return result;
      } catch (error) {
        pending--;
        if (sentByTheServer(error)) answered();
        throw error;
      }
    };
  return {
    store: {
      insertNew: counted((plants) => store.insertNew(plants)),
      findByIdAndName: counted((keys) => store.findByIdAndName(keys)),
    },
    reach: {
      silentForMs: () => (waitingSince === undefined ? 0 : now() - waitingSince),
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
 * MongoBulkWriteError too, a kind of MongoServerError, but without a write error of the server's.
 */
function sentByTheServer(error: unknown): boolean {
  if (error instanceof MongoBulkWriteError) return [error.writeErrors].flat().length > 0;
  return error instanceof MongoServerError;
}
