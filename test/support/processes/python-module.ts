import { spawn } from 'node:child_process';

export interface PythonRun {
  exitCode: number | null;
  /** stdout and stderr interleaved as the tool wrote them. */
  output: string;
}

/** Runs `<python> -m <module> <args>` to completion, without colours. */
export async function runPythonModule(
  python: string,
  module: string,
  args: readonly string[],
  { cwd, env = {} }: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<PythonRun> {
  const child = spawn(python, ['-m', module, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', PYTHONUNBUFFERED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { exitCode, output };
}
