import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { SCENARIOS } from './scenarios/catalogue.ts';

const SCRIPT = join(import.meta.dirname, 'run.ts');

/**
 * `--scenario gray`: each gray scenario in a run of its own (its own stack, as one at a time),
 * with the other flags as given; resolves with whether every one passed.
 *
 * Each runs in a process of its own rather than through runScenario in this one: a run that
 * fails part-way leaves its services, its clients' request loops, its probe and its progress
 * timer going, and its signal handlers (stopOnSignal has no undo) stay registered for the next
 * run. Its process's exit ends all of them before the next scenario starts (the local services
 * are SIGKILLed when the process that started them exits).
 */
export async function runEachGrayScenario(args: readonly string[]): Promise<boolean> {
  const others = args.filter(
    (arg, index) =>
      arg !== '--scenario' && args[index - 1] !== '--scenario' && !arg.startsWith('--scenario='),
  );
  const failed: string[] = [];
  for (const { name } of SCENARIOS.filter(({ gray }) => gray)) {
    console.log(`chaos gray: --scenario ${name}`);
    const child = spawn(
      process.execPath,
      [...process.execArgv, SCRIPT, ...others, '--scenario', name],
      { stdio: 'inherit' },
    );
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) failed.push(name);
  }
  console.log(`\nchaos gray: ${failed.length === 0 ? 'PASS' : `FAIL (${failed.join(', ')})`}`);
  return failed.length === 0;
}
