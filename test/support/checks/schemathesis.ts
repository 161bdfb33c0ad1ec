import { join } from 'node:path';
import { projectRoot } from '#local/provision/paths.ts';
import { runPythonModule, type PythonRun } from '../processes/python-module.ts';
import { pinnedVenvPython } from './pinned-venv.ts';

/** The Python of a venv holding the pinned schemathesis (pinned-venv.ts). */
export const schemathesisPython = () =>
  pinnedVenvPython({
    name: 'schemathesis',
    requirements: join(
      projectRoot,
      'test',
      'support',
      'checks',
      'schemathesis',
      'requirements.txt',
    ),
    neededFor: 'schemathesis for test/gateway/openapi-fuzz.response.test.ts',
  });

/** Runs `schemathesis <args>` to completion. */
export function runSchemathesis(
  python: string,
  args: readonly string[],
  { cwd, env = {} }: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<PythonRun> {
  return runPythonModule(python, 'schemathesis.cli', args, {
    cwd,
    env: { COLUMNS: '120', ...env },
  });
}
