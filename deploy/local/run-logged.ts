import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { lastLines } from './log-tail.ts';

export interface RunOptions {
  cwd: string;
  logFile: string;
  env?: NodeJS.ProcessEnv;
  /** Secrets among the arguments: shown as `[redacted]` in the log and in an error. */
  secrets?: readonly string[];
}

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
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    appendFileSync(options.logFile, chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    appendFileSync(options.logFile, chunk);
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) {
    throw new Error(
      `\`${shown}\` failed (exit ${code}); log ${options.logFile}:\n` +
        lastLines(options.logFile, 20),
    );
  }
  return stdout;
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((shown, secret) => shown.replaceAll(secret, '[redacted]'), text);
}
