import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '#local/provision/ports.ts';
import { httpIsReady } from '#local/process/http-ready.ts';
import type { ServiceConnections } from '#local/secure-stack.ts';
import type { ServerProcess } from '#local/process/server-process.ts';
import {
  ownReplyPartition,
  startGatewayProcess,
  startWriterProcess,
  type Services,
} from '#local/services.ts';
import { waitUntilReady } from '#local/process/wait-until-ready.ts';
import { TOPICS, WRITER_GROUP } from '#shared/contracts/kafka.ts';
import type { GroupState } from './cluster.ts';
import { provedEnded, provedHeldPartitions, provedNotListening } from './stop-proofs.ts';

export interface FleetOptions {
  /** The scenario whose changes these are: a stop or kill that did not take ends its run. */
  scenario: string;
  env: NodeJS.ProcessEnv;
  connections: ServiceConnections;
  logDir: string;
  /** The writers' consumer group as the coordinator sees it now. */
  writerGroup: (groupId: string, topic: string) => Promise<GroupState>;
  /** Variables of one process of its own, by its name (the gray scenarios' links). */
  ownEnv?: (name: string) => Record<string, string>;
}

/** How long a change may take before the run gives up on it. */
const CHANGE_TIMEOUT_MS = 60_000;

/** The processes a fleet runs now, changed in place by its steps. */
interface FleetState {
  writers: ServerProcess[];
  /** The gateways in the rotation, with `urls` and `ordinals` at the same index. */
  gateways: ServerProcess[];
  /** The gateways clients are sent to: a gateway leaves before it stops, joins once ready. */
  urls: string[];
  ordinals: number[];
  /** Processes started so far, which numbers the next one's name. */
  processes: number;
}

/**
 * The services under load, changed the way an operator or Kubernetes does: writers added,
 * stopped, killed or replaced; gateways added, stopped, killed or replaced as the pods of a
 * StatefulSet (each with its ordinal, which is its reply partition), behind a rotation the
 * clients read (`urls`), as a Service's endpoints. Every step waits for what Kubernetes'
 * readiness would: a writer in a stable group, a gateway's `/readyz`.
 */
export function serviceFleet(started: Services, options: FleetOptions) {
  const fleet: FleetState = {
    writers: [...started.writers],
    gateways: [...started.gateways],
    urls: [...started.urls],
    ordinals: started.gateways.map((_, index) => index),
    processes: started.writers.length + started.gateways.length,
  };
  const { urls, writers, gateways } = fleet;
  return {
    urls,
    writers,
    gateways,
    all: () => [...writers, ...gateways],
    ...writerSteps(fleet, options),
    ...gatewaySteps(fleet, options),
  };
}

function nextName(fleet: FleetState, kind: string): string {
  return `${kind}-${String(++fleet.processes)}`;
}

/**
 * SIGKILL, or SIGTERM with SIGKILL after 30 s as Kubernetes' grace period does; resolves once
 * the service has exited by it and its pid is gone.
 */
async function endService(scenario: string, service: ServerProcess, signal: 'SIGTERM' | 'SIGKILL') {
  if (signal === 'SIGTERM') await service.stop();
  else service.kill(signal);
  provedEnded(scenario, service, signal, await service.exited);
}

/** The writers' steps: each resolves once the writers' group has settled after it. */
function writerSteps(fleet: FleetState, options: FleetOptions) {
  const { writers } = fleet;
  const group = () => options.writerGroup(WRITER_GROUP, TOPICS.create);
  const startWriters = async (count: number) => {
    const before = await group();
    const fresh = Array.from({ length: count }, () =>
      startWriterProcess(nextName(fleet, 'writer'), options),
    );
    writers.push(...fresh);
    const joined = (members: ReadonlySet<string>) =>
      [...members].filter((id) => !before.members.has(id)).length === count;
    await groupSettles(
      group,
      `starting ${String(count)} writer(s)`,
      writers.length,
      joined,
      writers,
    );
  };

  /** Stops `stopped` with `signal`; resolves once the group has settled without them. */
  const stopWriters = async (stopped: ServerProcess[], signal: 'SIGTERM' | 'SIGKILL') => {
    const before = await group();
    await Promise.all(stopped.map((writer) => endService(options.scenario, writer, signal)));
    writers.splice(0, writers.length, ...writers.filter((writer) => !stopped.includes(writer)));
    await groupSettles(
      group,
      `stopping ${String(stopped.length)} writer(s)`,
      writers.length,
      (members) => [...members].every((id) => before.members.has(id)),
      writers,
    );
    return before;
  };

  return {
    /** Adds `count` writers at once, as a scale-up does. */
    startWriters,
    /** SIGTERMs the oldest `count` writers at once, as a scale-down does. */
    scaleDownWriters: (count: number) => stopWriters(writers.slice(0, count), 'SIGTERM'),
    /**
     * Stops the writer at `index` with `signal`, then starts one in its place; resolves with
     * the partitions the stopped one held, once the group is stable with the new one.
     */
    async replaceWriter(index: number, signal: 'SIGTERM' | 'SIGKILL'): Promise<number[]> {
      const writer = writers[index];
      if (writer === undefined) throw new Error(`no writer ${String(index)}`);
      const before = await group();
      await endService(options.scenario, writer, signal);
      writers.splice(index, 1);
      await startWriters(1);
      const after = await group();
      const gone = [...before.members].filter(([id]) => !after.members.has(id));
      const held = gone.flatMap(([, partitions]) => partitions);
      provedHeldPartitions(options.scenario, writer, held);
      return held;
    },
    /** A rolling update's step for a writer: a new one joins first, then the old one gets SIGTERM. */
    async rollWriter(index: number): Promise<void> {
      const writer = writers[index];
      if (writer === undefined) throw new Error(`no writer ${String(index)}`);
      await startWriters(1);
      await stopWriters([writer], 'SIGTERM');
    },
  };
}

/**
 * Resolves once the group is stable with `count` members and `check` holds of them; fails
 * naming `change` when one of `alive` exits or the group has not settled in time.
 */
async function groupSettles(
  group: () => Promise<GroupState>,
  change: string,
  count: number,
  check: (members: ReadonlySet<string>) => boolean,
  alive: readonly ServerProcess[],
) {
  const deadline = Date.now() + CHANGE_TIMEOUT_MS;
  let seen: string;
  for (;;) {
    const exited = alive.find((writer) => !writer.isRunning());
    if (exited !== undefined)
      throw new Error(`${change}: ${exited.name} exited; its log is ${exited.logFile}`);
    try {
      const now = await group();
      const settled = now.stable && now.members.size === count;
      if (settled && check(new Set(now.members.keys()))) return;
      seen = `${describeMembers(now)}${settled ? ', not the members awaited' : ''}`;
    } catch (error) {
      seen = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline)
      throw new Error(
        `${change}: the writers' group did not settle on ${String(count)} members within ${String(CHANGE_TIMEOUT_MS / 1_000)} s (last seen: ${seen})`,
      );
    await sleep(200);
  }
}

/** The gateways' steps, as a StatefulSet's pods behind a Service's endpoints (`urls`). */
function gatewaySteps(fleet: FleetState, options: FleetOptions) {
  const { gateways, urls, ordinals } = fleet;
  /** Starts gateway `ordinal` (its reply partition); it joins the rotation at `at` once ready. */
  const startGateway = async (ordinal: number, at: number) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${String(port)}`;
    const gateway = startGatewayProcess(nextName(fleet, 'gateway'), port, {
      ...options,
      env: { ...ownReplyPartition(ordinal, options.env), ...options.env },
    });
    await waitUntilReady(gateway, () => httpIsReady(url), CHANGE_TIMEOUT_MS);
    gateways.splice(at, 0, gateway);
    urls.splice(at, 0, url);
    ordinals.splice(at, 0, ordinal);
  };
  /** Takes the gateway at `index` out of the rotation; returns it, its URL and its ordinal. */
  const leave = (index: number) => {
    const [gateway] = gateways.splice(index, 1);
    const [url = ''] = urls.splice(index, 1);
    const [ordinal = 0] = ordinals.splice(index, 1);
    if (gateway === undefined) throw new Error(`no gateway ${String(index)}`);
    return { gateway, url, ordinal };
  };

  return {
    /** Adds `count` gateways at once, the next ordinals, as a StatefulSet scaled up in parallel. */
    async startGateways(count: number): Promise<void> {
      const next = Math.max(-1, ...ordinals) + 1;
      await Promise.all(
        Array.from({ length: count }, (_, index) => startGateway(next + index, gateways.length)),
      );
    },
    /** Stops the `count` highest ordinals at once (SIGTERM, each drains), as a scale-down does. */
    async scaleDownGateways(count: number): Promise<void> {
      const highest = ordinals.toSorted((a, b) => b - a).slice(0, count);
      const leaving = highest.map((ordinal) => leave(ordinals.indexOf(ordinal)));
      await Promise.all(
        leaving.map(({ gateway }) => endService(options.scenario, gateway, 'SIGTERM')),
      );
    },
    /**
     * SIGKILLs the gateway at `index`, which leaves the rotation at once (its endpoint goes with
     * its pod), then starts it again with the same ordinal, as its StatefulSet does; resolves
     * with the killed one's URL once the new one is in the rotation.
     */
    async killGateway(index: number): Promise<string> {
      const { gateway, url, ordinal } = leave(index);
      await endService(options.scenario, gateway, 'SIGKILL');
      await provedNotListening(options.scenario, url);
      await startGateway(ordinal, index);
      return url;
    },
    /**
     * A rolling update's step for a gateway, as a StatefulSet makes it (no surge): the old one
     * leaves the rotation and gets SIGTERM, answering what it has (SHUTDOWN_DRAIN_MS); once it
     * has exited, a new one with its ordinal starts and joins the rotation when ready.
     */
    async rollGateway(index: number): Promise<void> {
      const { gateway, ordinal } = leave(index);
      await endService(options.scenario, gateway, 'SIGTERM');
      await startGateway(ordinal, index);
    },
  };
}

export type ServiceFleet = ReturnType<typeof serviceFleet>;

/** The group as a failed wait last saw it: settled or not, and each member's partitions. */
export function describeMembers({ stable, members }: GroupState): string {
  const each = [...members].map(
    ([id, partitions]) => `${id}: ${partitions.length > 0 ? partitions.join(', ') : 'none'}`,
  );
  return `${stable ? 'stable' : 'rebalancing'} with ${String(members.size)} member(s)${each.length > 0 ? ` (partitions ${each.join('; ')})` : ''}`;
}
