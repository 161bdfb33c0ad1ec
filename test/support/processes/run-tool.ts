import { spawnSync } from 'node:child_process';
import { projectRoot } from '#local/provision/paths.ts';

export interface ToolRun {
  status: number | null;
  /** stdout, then stderr. */
  output: string;
}

/** Runs a binary to completion from the project root (the paths in its output are relative to it). */
export function runTool(binary: string, args: readonly string[]): ToolRun {
  const run = spawnSync(binary, args, { cwd: projectRoot, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
