import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/** JSON lines on stdout (or `destination`), with bearer tokens redacted. */
export function createLogger(
  service: string,
  level: LevelWithSilent = 'info',
  destination: DestinationStream = pino.destination(1),
): Logger {
  return pino(
    {
      name: service,
      level,
      redact: ['req.headers.authorization', 'headers.authorization', 'token'],
    },
    destination,
  );
}
