import { PROFILE_GROUPS } from '../../probes/profile-groups.ts';
import { costCurve, type CostPoint } from '../cost-curve.ts';
import type { VariantResult } from '../results.ts';
import { ms } from './cells.ts';

/** Each run's CPU per create by process against the offered rate, the closed loop last. */
export function costCurveLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const runs = results.filter(({ openLoop }) => openLoop !== undefined);
  if (runs.length === 0) return [];
  return [
    'CPU per create against offered rate: the CPU seconds of each process over the requests sent (idle not subtracted), in µs; the closed loop is the last row.',
    '',
    ...runs.flatMap((result) => {
      const curve = costCurve(result);
      const names = result.usage.map(({ name }) => name);
      return [
        `| ${label(result)}: offered req/s | CPU per create µs | ${names.join(' | ')} | p50 ms | p99 ms |`,
        `|${'---|'.repeat(names.length + 4)}`,
        ...curve.map((point) => {
          const cells = names.map(
            (name) => point.byProcess.find((each) => each.name === name)?.us ?? '–',
          );
          return `| ${rateCell(point)} | ${String(point.totalUs)} | ${cells.join(' | ')} | ${ms(point.p50)} | ${ms(point.p99)} |`;
        }),
        '',
        ...splitLines(label(result), curve, result.splitSampler),
      ];
    }),
  ];
}

/**
 * Each Node process's CPU per create of each point, its main thread's part split by where that
 * thread's busy samples over the same window went (`--cpu-prof`), and the rest: its other threads
 * (V8's concurrent marking and compiling, libuv's pool, the profiler's own sampling); then the
 * same main-thread part by the project file it was spent for.
 */
function splitLines(
  run: string,
  curve: readonly CostPoint[],
  sampler: string | undefined,
): string[] {
  const profiled = curve.filter(({ split }) => split !== undefined && split.length > 0);
  if (profiled.length === 0) return [];
  const groups = PROFILE_GROUPS.filter((group) =>
    profiled.some(({ split = [] }) =>
      split.some(({ byGroup }) => byGroup.some(({ name }) => name === group)),
    ),
  );
  return [
    `${run}, where each Node process's CPU per create went, in µs: its main thread's busy time (from its samples, at most the process's CPU) by what ran, and the rest of the process's CPU, on its other threads. Sampled by ${samplerName(sampler)}:`,
    '',
    `| offered req/s | process | CPU per create µs | ${groups.join(' | ')} | other threads |`,
    `|${'---|'.repeat(groups.length + 4)}`,
    ...profiled.flatMap((point) =>
      (point.split ?? []).map(({ process, busyUs, byGroup }) => {
        const { us, mainUs } = mainThread(point, process, busyUs);
        const cells = groups.map((group) => {
          const percent = byGroup.find(({ name }) => name === group)?.percent ?? 0;
          return String(Math.round((mainUs * percent) / 100));
        });
        return `| ${rateCell(point)} | ${process} | ${String(us)} | ${cells.join(' | ')} | ${String(Math.round(us - mainUs))} |`;
      }),
    ),
    '',
    `${run}, the same main-thread time by the project file it was spent for (the nearest project frame up the stack, or Fastify and Node's HTTP where one of theirs comes first), in µs per create, the eight largest${sampler === 'perf' ? INLINED : ''}:`,
    '',
    '| offered req/s | process | spent for |',
    '|---|---|---|',
    ...profiled.flatMap((point) =>
      (point.split ?? []).map(({ process, busyUs, byCaller }) => {
        const { mainUs } = mainThread(point, process, busyUs);
        const cells = byCaller.map(
          ({ name, percent }) => `${name} ${String(Math.round((mainUs * percent) / 100))}`,
        );
        return `| ${rateCell(point)} | ${process} | ${cells.join(', ')} |`;
      }),
    ),
    '',
  ];
}

/** What perf's stacks miss: V8's optimized code names only the outer function of what it inlined. */
const INLINED =
  "; perf names only the outer function of optimized code, so a project function that V8 inlined into Fastify's (the access log's `requestCompleted` into `onResponseCallback`) is charged to Fastify";

const samplerName = (sampler: string | undefined): string =>
  sampler === 'perf'
    ? 'Linux perf, on a CPU only'
    : `${sampler ?? 'V8'}: its samples reach a thread late when it waited for a CPU, and charge the wait to what ran just before, often a socket write that woke another process`;

/** A process's CPU per create at a point, and its main thread's part (at most the whole). */
function mainThread(point: CostPoint, process: string, busyUs: number) {
  const us = point.byProcess.find(({ name }) => name === process)?.us ?? 0;
  return { us, mainUs: Math.min(us, busyUs / Math.max(1, point.requests)) };
}

const rateCell = (point: CostPoint): string =>
  point.closedLoop ? `closed loop (${String(point.rate)})` : String(point.rate);
