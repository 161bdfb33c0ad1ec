/** One request as vegeta recorded it. */
export interface Hit {
  /** Sequence number in the order of sending, from 0. */
  seq: number;
  /** The id the target was tagged with (`tagged`). */
  id?: bigint;
  /** When it was sent, in ns since the epoch. */
  sentNs: bigint;
  latencyMs: number;
  /** 0 when no answer came (vegeta's error is in `error`). */
  code: number;
  error: string;
  /** The answer's body, and its Retry-After header when it has one, with `bodies`. */
  body?: string;
  retryAfter?: string;
}

/**
 * One line of vegeta's CSV: timestamp ns, code, latency ns, bytes out, bytes in, error, body,
 * attack name, seq, method, URL, headers. The error is the only field that may hold commas or
 * quotes, so the fields before it are cut from the front and the six after it from the back.
 * Null for a line that is not one.
 */
export function parseResult(line: string): Hit | null {
  const front = line.split(',', 5);
  const back = line.split(',').slice(-6);
  const numbers = [front[0], front[1], front[2], back[2]];
  if (back.length < 6 || !numbers.every((field) => field !== undefined && /^\d+$/.test(field)))
    return null;
  const error = line
    .slice(front.join(',').length + 1, line.length - back.join(',').length - 1)
    .replace(/^"(.*)"$/s, '$1')
    .replaceAll('""', '"');
  const [timestamp = '0', code = '0', latency = '0'] = front;
  const body = back[0] ?? '';
  const id = /#(\d+)$/.exec(back[4] ?? '')?.[1];
  const retryAfter = /^retry-after: *(.*?)\r?$/im.exec(
    Buffer.from(back[5] ?? '', 'base64').toString('latin1'),
  )?.[1];
  return {
    seq: Number(back[2] ?? 0),
    sentNs: BigInt(timestamp),
    latencyMs: Number(latency) / 1e6,
    code: Number(code),
    error,
    ...(body === '' ? {} : { body: Buffer.from(body, 'base64').toString() }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(id === undefined ? {} : { id: BigInt(id) }),
  };
}
