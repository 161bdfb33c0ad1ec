import { commandLine } from '#tooling/cli/command-line.ts';
import { chaosOptions, USAGE } from './options.ts';
import { runEachGrayScenario } from './run-each-gray.ts';
import { runOverload } from './overload/run-overload.ts';
import { runScenario } from './run-scenario.ts';

/**
 * `npm run chaos` with its flags: sets the exit code, 1 when a scenario failed, 2 on a refused
 * flag (with the usage, on stderr), 0 for --help.
 */
export async function main(args: string[]): Promise<void> {
  const options = commandLine(USAGE, () => chaosOptions(args));
  const { scenario } = options;
  const passed =
    scenario === 'gray'
      ? await runEachGrayScenario(args)
      : scenario.overload === true
        ? await runOverload(options)
        : await runScenario({ ...options, scenario });
  process.exitCode = passed ? 0 : 1;
}
