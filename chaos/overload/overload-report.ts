import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { answersCsv } from '../report/answers-csv.ts';
import { chaosHtml, chaosRecord } from '../report/html-report.ts';
import { FINDING_KINDS, type Finding } from '../report/verdict.ts';
import type { Target } from '../scenarios/scenario.ts';
import { flowPerSecond, phaseLines } from './phases.ts';
import type { PhaseRun } from './targets.ts';

/** What an overload run found. */
interface OverloadOutcome {
  throughput: number;
  /** How the generator and the services share the machine, and the generator's connections. */
  arrangement: string;
  runs: readonly PhaseRun[];
  findings: readonly Finding[];
  targets: readonly Target[];
  failed: boolean;
}

/** T, each phase, what checking against the store found, and each target, as printed. */
export function overloadSummary({
  throughput,
  arrangement,
  runs,
  findings,
  targets,
}: OverloadOutcome): string {
  return [
    '',
    `T: ${throughput.toFixed(0)} creates/s; ${arrangement}`,
    ...runs.flatMap((run) => phaseLines(run)),
    '',
    'checked against the store:',
    ...FINDING_KINDS.map(
      (kind) => `  ${kind}: ${String(findings.filter((finding) => finding.kind === kind).length)}`,
    ),
    ...findings.slice(0, 10).map(({ kind, id, detail }) => `    ${kind} ${String(id)}: ${detail}`),
    '',
    'targets:',
    ...targets.map(
      ({ target, met, measured: value }) => `  ${met ? 'met   ' : 'MISSED'} ${target}: ${value}`,
    ),
  ].join('\n');
}

/** The phases' answers (`answers.csv`), the run's record (`run.json`) and its page (`report.html`). */
export async function writeOverloadReport(
  dir: string,
  outcome: OverloadOutcome & { loadStartedAt: number; loadEndedAt: number },
): Promise<void> {
  const { runs, targets, findings, failed, loadStartedAt, loadEndedAt } = outcome;
  const loadAnswers = runs.flatMap(({ answers }) => answers);
  const record = chaosRecord({
    scenario: 'overload',
    startedAt: new Date(loadStartedAt).toISOString(),
    passed: !failed,
    load: loadAnswers,
    changes: runs.map(({ name, rate, startedAt, seconds }) => ({
      name: `${name}: ${String(rate)}/s`,
      at: startedAt,
      doneAt: startedAt + seconds * 1_000,
    })),
    targets,
    findings,
    loadStartedAt,
    loadSeconds: (loadEndedAt - loadStartedAt) / 1_000,
    flow: flowPerSecond(loadAnswers, loadStartedAt),
  });
  await writeFile(join(dir, 'answers.csv'), answersCsv(loadAnswers, loadStartedAt));
  await writeFile(join(dir, 'run.json'), `${JSON.stringify(record, null, 2)}\n`);
  await writeFile(join(dir, 'report.html'), chaosHtml(record).html);
}
