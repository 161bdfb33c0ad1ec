import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

export function createLogger(service: string, level: LevelWithSilent = 'info'): Logger {
  return pino({
    name: service,
    level,
    redact: ['req.headers.authorization', 'headers.authorization', 'token'],
  });
}
