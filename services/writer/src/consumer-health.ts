import type { Consumer } from 'kafkajs';

export interface ConsumerHealth {
  /** Why the writer cannot take commands (not in its group, restarting, stopping), or undefined. */
  notReadyReason: () => string | undefined;
  /** Set once the consumer stopped after an error it does not restart from. */
  failure: () => string | undefined;
  /** From now on the writer reports itself not ready. */
  stopping: () => void;
}

/** What the consumer's events say of it: in its group, restarting after a crash, or given up. */
export function consumerHealth(consumer: Pick<Consumer, 'on' | 'events'>): ConsumerHealth {
  let state: 'joining' | 'joined' | 'restarting' | 'stopping' = 'joining';
  let failure: string | undefined;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    if (state !== 'stopping') state = 'joined';
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) state = 'restarting';
    else failure = `the consumer stopped after an error: ${payload.error.message}`;
  });
  return {
    notReadyReason() {
      if (state === 'stopping') return 'shutting down';
      if (failure !== undefined) return failure;
      if (state === 'restarting') return 'the consumer is restarting after an error';
      return state === 'joined' ? undefined : 'not in the consumer group yet';
    },
    failure: () => failure,
    stopping() {
      state = 'stopping';
    },
  };
}
