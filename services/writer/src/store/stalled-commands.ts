import { AsyncLocalStorage } from 'node:async_hooks';
import type { CommandFailedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';

export interface StalledCommands {
  /**
   * Runs a store operation with a signal that aborts it once one of its commands has gone
   * `stalledAfterMs` without succeeding or failing. The operation must pass the signal on to the
   * driver (`{ signal }` in its options).
   */
  run<T>(operation: (signal: AbortSignal) => Promise<T>): Promise<T>;
}

/**
 * Ends the operations whose command the mongodb driver would wait for forever. When a command's
 * bytes do not fit in its socket's buffer, the driver (7.9) waits for the socket's `drain`, and
 * only an `error` event or an abort ends that wait; a socket timeout closes the connection with
 * `destroy()`, which emits neither, so an insert on a connection that stalled mid-write never
 * settled, holding its partitions (seen when the half-open store paths of the gray runs healed).
 * Past the socket timeout, a command that has not ended is on a closed connection: `stalledAfterMs`
 * sits just beyond it, and the operation fails as it would have failed on the timeout, to be
 * retried. The client must be created with `monitorCommands: true`, whose command events say
 * which commands have started and ended; the commands are told apart by the operation whose
 * asynchronous context started them.
 */
export function stalledCommands(
  client: Pick<MongoClient, 'on'>,
  stalledAfterMs: number,
): StalledCommands {
  const operations = new AsyncLocalStorage<AbortController>();
  const waiting = new Map<number, NodeJS.Timeout>();
  client.on('commandStarted', (event) => {
    const operation = operations.getStore();
    if (operation === undefined) return;
    const timer = setTimeout(() => {
      waiting.delete(event.requestId);
      operation.abort(
        new Error(
          `the store sent nothing back to ${event.commandName} on connection ${String(event.connectionId)} for ${String(stalledAfterMs)} ms: its connection timed out, and the driver would wait for it forever`,
        ),
      );
    }, stalledAfterMs);
    timer.unref();
    waiting.set(event.requestId, timer);
  });
  const ended = (event: CommandSucceededEvent | CommandFailedEvent) => {
    clearTimeout(waiting.get(event.requestId));
    waiting.delete(event.requestId);
  };
  client.on('commandSucceeded', ended);
  client.on('commandFailed', ended);
  return {
    run(operation) {
      const controller = new AbortController();
      return operations.run(controller, () => operation(controller.signal));
    },
  };
}
