import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * Where a secret may turn up in a log line: an Authorization header, a token, the bytes of a
 * request Node's parser refused (headers included), and the query string of a request's URL,
 * where a client may put a token although none is read there.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'token',
  'err.rawPacket',
  'req.url',
];

/** A URL keeps its path; anything after `?` is replaced. */
function censor(value: unknown, path: string[]): unknown {
  if (path.join('.') !== 'req.url' || typeof value !== 'string') return '[Redacted]';
  const query = value.indexOf('?');
  return query === -1 ? value : `${value.slice(0, query)}?[Redacted]`;
}

/** JSON lines on stdout (or `destination`), with secrets redacted. */
export function createLogger(
  service: string,
  level: LevelWithSilent = 'info',
  destination: DestinationStream = pino.destination(1),
): Logger {
  return pino({ name: service, level, redact: { paths: REDACTED_PATHS, censor } }, destination);
}
