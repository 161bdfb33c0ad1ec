import { brokerBlackholeGateway } from './gray/broker-blackhole-gateway.ts';
import { replySlow } from './gray/reply-slow.ts';
import { storeCutOne } from './gray/store-cut-one.ts';
import { storeDownAll } from './gray/store-down-all.ts';
import { storeHalfOpen } from './gray/store-half-open.ts';
import { storeSlow } from './gray/store-slow.ts';
import { overload } from './overload.ts';
import { writerFrozen } from './gray/writer-frozen.ts';
import type { Scenario } from './scenario.ts';
import { broker } from './visible/broker.ts';
import { brokerDiskFull } from './visible/broker-disk-full.ts';
import { gateways } from './visible/gateways.ts';
import { mixed } from './visible/mixed.ts';
import { rolling } from './visible/rolling.ts';
import { scale } from './visible/scale.ts';
import { storeDiskFull } from './visible/store-disk-full.ts';
import { writerKill } from './visible/writer-kill.ts';

/** Every scenario `--scenario` takes, in the order `--help` lists them and `gray` runs its own. */
export const SCENARIOS: readonly Scenario[] = [
  mixed,
  scale,
  rolling,
  broker,
  writerKill,
  gateways,
  storeDiskFull,
  brokerDiskFull,
  overload,
  storeCutOne,
  storeDownAll,
  storeSlow,
  storeHalfOpen,
  brokerBlackholeGateway,
  writerFrozen,
  replySlow,
];

export function scenarioNamed(name: string): Scenario | undefined {
  return SCENARIOS.find((scenario) => scenario.name === name);
}
