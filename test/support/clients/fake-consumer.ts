import { EventEmitter } from 'node:events';
import type { Consumer } from 'kafkajs';
import { vi } from 'vitest';

/**
 * A kafkajs consumer's events, connect and disconnect only, for unit tests of what reacts to
 * them: kafkajs cannot be made to crash, join or give up on demand.
 */
export function fakeConsumer() {
  const emitter = new EventEmitter();
  const events = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' };
  const connect = vi.fn(() => Promise.resolve());
  const disconnect = vi.fn(() => Promise.resolve());
  const consumer = {
    events,
    connect,
    disconnect,
    on: (event: string, listener: (event: unknown) => void) => emitter.on(event, listener),
  } as unknown as Pick<Consumer, 'on' | 'events' | 'connect' | 'disconnect'>;
  return {
    consumer,
    connect,
    disconnect,
    /** A crash that kafkajs restarts from itself (`restart`), or not. */
    crash: (restart: boolean, message = 'the broker went away') => {
      emitter.emit(events.CRASH, { payload: { error: new Error(message), restart } });
    },
    join: () => emitter.emit(events.GROUP_JOIN, { payload: {} }),
  };
}
