/** Events that come in bursts, told once when a burst starts and once when it has ended. */
export interface Burst<Details> {
  note(details: Details): void;
  /** True from the first event until `quietMs` pass without another. */
  readonly active: boolean;
  stop(): void;
}

export interface BurstOptions<Details> {
  quietMs: number;
  started: (details: Details) => void;
  /** `lastedMs`: from the first event to the last. */
  ended: (summary: { events: number; lastedMs: number }) => void;
}

/**
 * A log line per event would be a flood of its own (thousands of refused connections a second):
 * the first event of a burst is told with its details, the end with how many there were.
 */
export function burst<Details>({ quietMs, started, ended }: BurstOptions<Details>): Burst<Details> {
  let events = 0;
  let first = 0;
  let last = 0;
  let quiet: NodeJS.Timeout | undefined;
  const end = () => {
    quiet = undefined;
    ended({ events, lastedMs: last - first });
    events = 0;
  };
  return {
    note(details) {
      events += 1;
      last = Date.now();
      if (quiet !== undefined) {
        quiet.refresh();
        return;
      }
      first = last;
      started(details);
      quiet = setTimeout(end, quietMs).unref();
    },
    get active() {
      return quiet !== undefined;
    },
    stop() {
      clearTimeout(quiet);
      quiet = undefined;
      events = 0;
    },
  };
}
