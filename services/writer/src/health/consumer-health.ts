import type { Consumer } from 'kafkajs';

export interface ConsumerHealth {
  /** Why the writer cannot take commands (not in its group, restarting, stopping), or undefined. */
  notReadyReason: () => string | undefined;
  /** From now on the writer reports itself not ready. */
  stopping: () => void;
}

/** What the consumer's events say of it: in its group, restarting after a crash, or stopping. */
export function consumerHealth(consumer: Pick<Consumer, 'on' | 'events'>): ConsumerHealth {
  let state: 'joining' | 'joined' | 'restarting' | 'stopping' = 'joining';
  let crash = '';
  consumer.on(consumer.events.GROUP_JOIN, () => {
    if (state !== 'stopping') state = 'joined';
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (state === 'stopping') return;
    state = 'restarting';
    crash = payload.error.message;
  });
  return {
    notReadyReason() {
      if (state === 'stopping') return 'shutting down';
      if (state === 'restarting') return `the consumer is restarting after an error: ${crash}`;
      return state === 'joined' ? undefined : 'not in the consumer group yet';
    },
    stopping() {
      state = 'stopping';
    },
  };
}
