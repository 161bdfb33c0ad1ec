import type { Reply } from '#shared/contracts/reply.ts';

export const TIMED_OUT = Symbol('timed out');

export interface ReplyWaiter {
  /** Register before publishing: a reply may arrive before the send is acknowledged. */
  waitFor(correlationId: string, timeoutMs: number): Promise<Reply | typeof TIMED_OUT>;
  cancel(correlationId: string): void;
  isWaitingFor(correlationId: string): boolean;
  /** Replies for requests this instance does not wait for belong to other gateways. */
  deliver(correlationId: string, reply: Reply): void;
  readonly waiting: number;
}

export function replyWaiter(): ReplyWaiter {
  const pending = new Map<
    string,
    { resolve: (reply: Reply | typeof TIMED_OUT) => void; timer: NodeJS.Timeout }
  >();
  const settle = (correlationId: string, outcome: Reply | typeof TIMED_OUT) => {
    const entry = pending.get(correlationId);
    if (entry === undefined) return;
    pending.delete(correlationId);
    clearTimeout(entry.timer);
    entry.resolve(outcome);
  };
  return {
    waitFor: (correlationId, timeoutMs) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => {
          settle(correlationId, TIMED_OUT);
        }, timeoutMs);
        pending.set(correlationId, { resolve, timer });
      }),
    cancel: (correlationId) => {
      settle(correlationId, TIMED_OUT);
    },
    isWaitingFor: (correlationId) => pending.has(correlationId),
    deliver: settle,
    get waiting() {
      return pending.size;
    },
  };
}
