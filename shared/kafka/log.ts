import { logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { Level } from 'pino';
import type { Logger } from '../logger.ts';

const LEVELS: Partial<Record<logLevel, Level>> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/**
 * Warned on every idempotent producer with bounded retries; `idempotent-producer.ts` is what
 * keeps such a producer safe, so the line would only alarm whoever reads the log.
 */
const ANSWERED = new Set([
  'Limiting retries for the idempotent producer may invalidate EoS guarantees',
]);

/**
 * kafkajs's log lines as lines of the service's pino logger (its name, bindings and redaction):
 * kafkajs's level mapped to pino's, its message as `msg`, and its namespace and fields under
 * `kafka`. kafkajs's own timestamp and `logger` field are dropped; pino stamps the line.
 */
export function kafkaLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const pinoLevel = LEVELS[level];
      if (pinoLevel === undefined || ANSWERED.has(message)) return;
      logger[pinoLevel]({ kafka: { namespace, ...fields } }, message);
    };
}
