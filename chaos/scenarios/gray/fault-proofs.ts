import { setTimeout as sleep } from 'node:timers/promises';
import type { LinkFaults } from '#local/faults/gray-links.ts';
import type { ProbeAnswer } from '#local/faults/link-probe.ts';
import { processState } from '#local/process/process-identity.ts';
import { FaultNotMade } from '../fault-not-made.ts';

// Each proof follows its fault in the same change, before the run waits out the fault: a fault
// that did not take ends the run (FaultNotMade) instead of letting targets judge a healthy path.

/** How long a request through a link that should be silent waits for an answer. */
const SILENT_FOR_MS = 3_000;
/** Fresh connections tried through a link that stalls some of them. */
const PARTLY_TRIES = 20;

const shown = (answers: readonly ProbeAnswer[]) =>
  answers
    .map((answer) => (typeof answer === 'number' ? `answered in ${answer.toFixed(0)} ms` : answer))
    .join(', ');

/** A request on a fresh connection through each of the link's proxies meets silence. */
export async function provedSilent(scenario: string, path: string, link: LinkFaults) {
  const answers = await link.probe(SILENT_FOR_MS);
  if (answers.some((answer) => answer !== 'silent'))
    throw new FaultNotMade(
      scenario,
      `${path} is not silent: a request through it was ${shown(answers)}`,
    );
}

/** Every request through the link is answered, none sooner than `atLeastMs`. */
export async function provedSlow(
  scenario: string,
  path: string,
  link: LinkFaults,
  atLeastMs: number,
) {
  const answers = await link.probe(3 * atLeastMs);
  if (answers.some((answer) => typeof answer !== 'number' || answer < atLeastMs))
    throw new FaultNotMade(
      scenario,
      `${path} is not ${String(atLeastMs)} ms slow: a request through it was ${shown(answers)}`,
    );
}

/** Of fresh connections through the link, some meet silence and some an answer. */
export async function provedPartlySilent(scenario: string, path: string, link: LinkFaults) {
  const tries = await Promise.all(
    Array.from({ length: PARTLY_TRIES }, () => link.probe(SILENT_FOR_MS)),
  );
  const answers = tries.flat();
  const silent = answers.filter((answer) => answer === 'silent').length;
  const answered = answers.filter((answer) => typeof answer === 'number').length;
  if (silent === 0 || answered === 0)
    throw new FaultNotMade(
      scenario,
      `${path} does not stall some connections and answer others: of ${String(answers.length)} fresh ones, ${String(silent)} met silence and ${String(answered)} an answer`,
    );
}

/** The process is stopped by a signal (state `T`), looked at for up to a second. */
export async function provedStopped(scenario: string, name: string, pid: number) {
  for (let look = 0; look < 10; look++) {
    if (processState(pid) === 'T') return;
    await sleep(100);
  }
  throw new FaultNotMade(
    scenario,
    `${name} is not stopped: its state is ${processState(pid) ?? 'gone'}, not T`,
  );
}
