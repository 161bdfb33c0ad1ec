/** Where a progress line is written: `process.stdout`, or a test's stand-in. */
export interface ProgressOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressLine {
  /** Shows `text` as the current state of the work. */
  update(text: string): void;
  /** Prints `text` as a line of its own, above the progress line on a terminal. */
  log(text: string): void;
  /**
   * Ends the line, with `final` as its last state when given (always written, even in a log), or
   * else the last state shown; what is printed next starts below it.
   */
  end(final?: string): void;
}

/** Erases the terminal's current line and returns to its start. */
const REWRITE = '\r\x1b[2K';

/**
 * A line that tells how long work is going. On a terminal it is rewritten in place at each
 * update. Anywhere else (a CI log, a pipe, a file) no cursor control is written: each update is a
 * plain line of its own, at most one every `pipedEveryMs`, so that a log keeps one line per few
 * seconds rather than one per update.
 */
export function progressLine(
  out: ProgressOutput = process.stdout,
  { pipedEveryMs = 5_000, now = Date.now }: { pipedEveryMs?: number; now?: () => number } = {},
): ProgressLine {
  const terminal = out.isTTY === true;
  let shown: string | undefined;
  let pipedAt = Number.NEGATIVE_INFINITY;
  return {
    update(text) {
      if (terminal) {
        out.write(`${REWRITE}${text}`);
        shown = text;
        return;
      }
      const at = now();
      if (at - pipedAt < pipedEveryMs) return;
      pipedAt = at;
      out.write(`${text}\n`);
    },
    log(text) {
      out.write(terminal && shown !== undefined ? `${REWRITE}${text}\n${shown}` : `${text}\n`);
    },
    end(final) {
      if (final !== undefined) out.write(`${terminal ? REWRITE : ''}${final}\n`);
      else if (shown !== undefined) out.write('\n');
      shown = undefined;
      pipedAt = Number.NEGATIVE_INFINITY;
    },
  };
}

/** Seconds as the progress lines show them: `12 s`, or `2 min 05 s` from a minute on. */
export function elapsed(ms: number): string {
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 60) return `${String(seconds)} s`;
  return `${String(Math.floor(seconds / 60))} min ${String(seconds % 60).padStart(2, '0')} s`;
}
