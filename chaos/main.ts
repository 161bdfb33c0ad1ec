import { chaosOptions, USAGE, type ChaosOptions } from './options.ts';
import { runEachGrayScenario } from './run-each-gray.ts';
import { runScenario } from './run-scenario.ts';

/**
 * `npm run chaos` with its flags: sets the exit code, 1 when a scenario failed, 2 on a refused
 * flag (with the usage, on stderr), 0 for --help.
 */
export async function main(args: string[]): Promise<void> {
  let options: ChaosOptions | 'help';
  try {
    options = chaosOptions(args);
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    console.log(USAGE);
    return;
  }
  const { scenario } = options;
  const passed =
    scenario === 'gray'
      ? await runEachGrayScenario(args)
      : await runScenario({ ...options, scenario });
  process.exitCode = passed ? 0 : 1;
}
