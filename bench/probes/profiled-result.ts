import type { RateStep } from '../open-loop/rate-step.ts';
import type { VariantResult } from '../report/results.ts';
import {
  splitProfile,
  summarizeProfile,
  type NamedProfile,
  type ProfileWindow,
} from './cpu-profile.ts';

/**
 * A variant's result with its processes' profiles read: each one's whole life by area and
 * function, and the measured load and each open-loop step by group, each over its own window.
 */
export function withProfiles(
  result: VariantResult,
  profiles: readonly NamedProfile[],
): VariantResult {
  const splitOver = (window: ProfileWindow) =>
    profiles.map(({ process, profile }) => splitProfile(profile, process, window));
  const step = (each: RateStep): RateStep =>
    each.window === undefined ? each : { ...each, split: splitOver(each.window) };
  const { openLoop, loadWindow } = result;
  return {
    ...result,
    profiles: profiles.map(({ process, file, profile }) =>
      summarizeProfile(profile, process, file),
    ),
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
