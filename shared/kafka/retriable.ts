/**
 * Whether a kafkajs error may pass if tried again: kafkajs marks each of its errors `retriable`
 * (a protocol error as Kafka's own table says: UNKNOWN_TOPIC_OR_PARTITION and
 * LEADER_NOT_AVAILABLE are, TOPIC_AUTHORIZATION_FAILED and INVALID_CONFIG are not). Its wrappers
 * carry `retriable: false` whatever they wrap: KafkaJSNumberOfRetriesExceeded means only that its
 * own retries ran out (on a broker not up yet, say), and KafkaJSNonRetriableError may wrap an error
 * it bailed on although retriable. So the innermost error that says either way decides. Errors
 * that are not Kafka's (a TypeError, a bug) say nothing and are not retried.
 */
export function kafkaErrorIsRetriable(error: unknown): boolean {
  let verdict: boolean | undefined;
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    const { retriable } = at as Error & { retriable?: unknown };
    if (typeof retriable === 'boolean') verdict = retriable;
  }
  return verdict ?? false;
}
