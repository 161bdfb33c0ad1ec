import { readFileSync } from 'node:fs';

/** A line of a service's own log (pino: `time` and `msg`). */
export interface ServiceLogLine {
  at: number;
  process: string;
  msg: string;
}

/** Every line of the services' JSON logs (pino) with its time and message; other lines are skipped. */
export function serviceLogLines(
  processes: readonly { name: string; logFile: string }[],
): ServiceLogLine[] {
  return processes.flatMap(({ name, logFile }) =>
    readFileSync(logFile, 'utf8')
      .split('\n')
      .flatMap((line) => {
        if (!line.startsWith('{')) return [];
        try {
          const { time, msg } = JSON.parse(line) as { time?: unknown; msg?: unknown };
          return typeof time === 'number' && typeof msg === 'string'
            ? [{ at: time, process: name, msg }]
            : [];
        } catch {
          return [];
        }
      }),
  );
}
