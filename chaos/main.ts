import { commandLine, EXIT_CODES } from '#tooling/cli/command-line.ts';
import { chaosOptions, USAGE } from './options.ts';
import { runEachGrayScenario } from './run-each-gray.ts';
import { runOverload } from './overload/run-overload.ts';
import { runScenario } from './run-scenario.ts';
import { FAULT_NOT_MADE_EXIT, FaultNotMade } from './scenarios/fault-not-made.ts';
import { TmpfsRefused } from './stack/data-on-tmpfs.ts';

/**
 * `npm run chaos` with its flags: sets the exit code, 1 when a scenario failed, 2 on a refused
 * flag (with the usage, on stderr) or a tmpfs that could not be mounted, 3 when its fault did not
 * take (FAULT_NOT_MADE_EXIT), 0 for --help.
 */
export async function main(args: string[]): Promise<void> {
  const options = commandLine(USAGE, () => chaosOptions(args));
  const { scenario } = options;
  try {
    const passed =
      scenario === 'gray'
        ? await runEachGrayScenario(args)
        : scenario.overload === true
          ? await runOverload(options)
          : await runScenario({ ...options, scenario });
    process.exitCode = passed ? EXIT_CODES.ok : EXIT_CODES.failed;
  } catch (error) {
    if (!(error instanceof TmpfsRefused || error instanceof FaultNotMade)) throw error;
    console.error(error.message);
    process.exitCode = error instanceof FaultNotMade ? FAULT_NOT_MADE_EXIT : EXIT_CODES.usage;
  }
}
