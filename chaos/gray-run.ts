import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { GRAY_SCENARIOS } from './targets.ts';

/**
 * `--scenario gray`: each gray scenario in a run of its own (its own stack, as one at a time),
 * with the other flags as given; resolves with 1 when any failed.
 */
export async function runEachGrayScenario(args: readonly string[]): Promise<number> {
  const script = process.argv[1] ?? '';
  const others = args.filter(
    (arg, index) =>
      arg !== '--scenario' && args[index - 1] !== '--scenario' && !arg.startsWith('--scenario='),
  );
  const failed: string[] = [];
  for (const scenario of GRAY_SCENARIOS) {
    console.log(`chaos gray: --scenario ${scenario}`);
    const child = spawn(
      process.execPath,
      [...process.execArgv, script, ...others, '--scenario', scenario],
      {
        stdio: 'inherit',
      },
    );
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) failed.push(scenario);
  }
  console.log(`\nchaos gray: ${failed.length === 0 ? 'PASS' : `FAIL (${failed.join(', ')})`}`);
  return failed.length === 0 ? 0 : 1;
}
