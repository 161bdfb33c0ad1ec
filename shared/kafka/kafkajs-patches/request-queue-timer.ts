import { prototypeToPatch } from './version-guard.ts';

/** kafkajs's own pause before it looks again at requests held back by the in-flight cap. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

/** What this module uses of kafkajs's internal RequestQueue (src/network/requestQueue/index.js). */
interface RequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(this: RequestQueue): void;
}

/**
 * kafkajs 2.2.4 looks at every connection's queue of held-back requests again after each answer,
 * and when nothing is held back and the broker throttles nothing, it schedules that look with a
 * negative delay: Node runs it 1 ms later, and it schedules the next one, forever. Every Node
 * process with a Kafka connection then woke hundreds of times a second when idle
 * (docs/history/2026-12-03-figures-behind-the-comments.md), and under load each of those wake-ups
 * takes CPU from the requests. Node 24's `TimeoutNegativeWarning` on every connection was the same
 * loop. kafkajs issues 1556, 1604 and 1704 describe it; its fixes (pull requests 1667 and 1768)
 * are not in a release.
 *
 * From here on, for every kafkajs client in the process: a queue schedules a look only while it
 * holds requests back, at the end of the broker's throttle or else after kafkajs's own 10 ms (an
 * answer or a timeout looks at once anyway, as before).
 */
export function checkHeldRequestsOnlyWhenHeld(): void {
  const prototype = prototypeToPatch(
    'src/network/requestQueue/index.js',
    'shared/kafka/kafkajs-patches/request-queue-timer.ts',
  ) as RequestQueue | undefined;
  if (prototype === undefined) return;
  prototype.scheduleCheckPendingRequests = function (this: RequestQueue) {
    if (this.throttleCheckTimeoutId !== null || this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
    );
  };
}
