import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { lastLines } from './log-tail.ts';
import { watchStep, type StepProgress } from './step-progress.ts';

export interface RunOptions {
  cwd: string;
  logFile: string;
  env?: NodeJS.ProcessEnv;
  /** Secrets among the arguments: shown as `[redacted]` in the log and in an error. */
  secrets?: readonly string[];
  /** For a step that takes long: a progress line while it runs. */
  progress?: StepProgress;
}

/** What `go build -v` prints for each package it compiles: its import path, alone on a line. */
export const GO_PACKAGES_COMPILED = {
  line: /^[\w.~-]+(?:\/[\w.~-]+)*$/,
  done: 'packages compiled',
};

/** Runs a build step to completion, its output appended to `logFile`; resolves with its stdout. */
export async function runLogged(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<string> {
  const shown = redact(`${command} ${args.join(' ')}`, options.secrets ?? []);
  mkdirSync(dirname(options.logFile), { recursive: true });
  appendFileSync(options.logFile, `$ ${shown}\n`);
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const step =
    options.progress === undefined ? undefined : watchStep(options.progress, options.logFile);
  const onOutput = () => eachLine((text) => step?.output(text));
  const [stdoutLines, stderrLines] = [onOutput(), onOutput()];
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    appendFileSync(options.logFile, chunk);
    stdoutLines(chunk);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    appendFileSync(options.logFile, chunk);
    stderrLines(chunk);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  }).finally(() => {
    step?.end(child.exitCode === 0);
  });
  if (code !== 0) {
    throw new Error(
      `\`${shown}\` failed (exit ${code}); log ${options.logFile}:\n` +
        lastLines(options.logFile, 20),
    );
  }
  return stdout;
}

/** Calls `onLine` with each whole line of a stream given in chunks. */
function eachLine(onLine: (text: string) => void): (chunk: string) => void {
  let rest = '';
  return (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const text of lines) onLine(text);
  };
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((shown, secret) => shown.replaceAll(secret, '[redacted]'), text);
}
