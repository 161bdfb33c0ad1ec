import type { RateStep } from '../open-loop/rate-step.ts';
import type { VariantResult } from '../report/results.ts';
import {
  splitProfile,
  summarizeProfile,
  type NamedProfile,
  type ProcessSplit,
  type ProfileWindow,
} from './cpu-profile.ts';
import { PERF_FREQUENCY_HZ } from './perf-record.ts';
import { splitPerfProfile, type PerfProfile } from './perf-samples.ts';

/** A variant's processes sampled by perf, or by V8 where perf could not (and why not). */
export type Profiles = { perf: PerfProfile } | { v8: readonly NamedProfile[]; because: string };

/**
 * A variant's result with its processes' profiles read: each one's whole life by area and
 * function, and the measured load and each open-loop step by group, each over its own window.
 */
export function withProfiles(result: VariantResult, profiles: Profiles): VariantResult {
  const splitOver = (window: ProfileWindow): ProcessSplit[] =>
    'perf' in profiles
      ? splitPerfProfile(profiles.perf, window, PERF_FREQUENCY_HZ)
      : profiles.v8.map(({ process, profile }) => splitProfile(profile, process, window));
  const step = (each: RateStep): RateStep =>
    each.window === undefined ? each : { ...each, split: splitOver(each.window) };
  const { openLoop, loadWindow } = result;
  return {
    ...result,
    profiles:
      'perf' in profiles
        ? profiles.perf.summaries
        : profiles.v8.map(({ process, file, profile }) => summarizeProfile(profile, process, file)),
    splitSampler: 'perf' in profiles ? 'perf' : `V8 (${profiles.because})`,
    ...(loadWindow === undefined ? {} : { loadSplit: splitOver(loadWindow) }),
    ...(openLoop === undefined
      ? {}
      : {
          openLoop: {
            rates: openLoop.rates.map(step),
            capacity:
              openLoop.capacity === null
                ? null
                : { ...openLoop.capacity, steps: openLoop.capacity.steps.map(step) },
          },
        }),
  };
}
