import { elapsed, progressLine, type ProgressOutput } from '#tooling/progress/progress-line.ts';

/** How a long build step tells its progress (`runLogged`). */
export interface StepProgress {
  /** What the step does: "building FerretDB v1.24.2". */
  step: string;
  /** The tool's output lines that each mark one unit done, and how a count of them reads. */
  counts?: { line: RegExp; done: string };
  out?: ProgressOutput;
  /** After this long without a line from the tool, the progress line says it is still working. */
  silentAfterMs?: number;
}

/**
 * A progress line for a build step while it runs: its name, the time it has taken, the units the
 * tool reported done, and where its full log is; a tool silent for a while is said to be still
 * working, so that a slow build does not look like a hang. Returns what the step's output and its
 * end are told to.
 */
export function watchStep(progress: StepProgress, logFile: string) {
  const line = progressLine(progress.out);
  const silentAfterMs = progress.silentAfterMs ?? 15_000;
  const startedAt = Date.now();
  let lastOutputAt = startedAt;
  let done = 0;
  const counted = () =>
    progress.counts === undefined ? [] : [`${String(done)} ${progress.counts.done}`];
  const show = () => {
    const now = Date.now();
    const parts = [`  ${progress.step}: ${elapsed(now - startedAt)}`, ...counted()];
    if (now - lastOutputAt >= silentAfterMs)
      parts.push(`nothing printed for ${elapsed(now - lastOutputAt)}: still working`);
    line.update(`${parts.join(', ')} (log: ${logFile})`);
  };
  show();
  const timer = setInterval(show, 1_000);
  return {
    /** One line the tool printed. */
    output(text: string) {
      lastOutputAt = Date.now();
      if (progress.counts?.line.test(text) === true) done++;
    },
    end(ok: boolean) {
      clearInterval(timer);
      const ended = `  ${progress.step}: ${ok ? 'done' : 'failed'} in ${elapsed(Date.now() - startedAt)}`;
      line.end([ended, ...counted()].join(', '));
    },
  };
}
