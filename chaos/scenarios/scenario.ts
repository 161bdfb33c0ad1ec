import type { LocalStack } from '#local/stack.ts';
import type { Sample } from '../observe/probe.ts';
import type { ServiceLogLine } from '../observe/service-logs.ts';
import type { LogEvent } from '../observe/timeline.ts';
import type { Answer } from '../observe/traffic.ts';
import type { Change } from '../report/figures.ts';
import type { clusterFacts } from '../stack/cluster.ts';
import type { DataFolder, TmpfsData } from '../stack/data-on-tmpfs.ts';
import type { ServiceFleet } from '../stack/fleet.ts';
import type { GrayLinks } from '../stack/process-links.ts';

/**
 * A scenario: the changes it makes while the load runs, and what it promises the clients
 * (docs/how-to/run-chaos.md). The visible ones change processes the way operators and
 * crashes do; the gray ones (docs/failure-modes.md, "Gray faults") fault one path a process cannot
 * see from inside, through toxiproxy.
 */
export type Scenario = VisibleScenario | GrayScenario | OverloadScenario;

/** A scenario of changes made under a closed load (`run-scenario.ts`). */
export type ChangingScenario = VisibleScenario | GrayScenario;

/**
 * More load than the system can serve, offered on schedule to one gateway and one writer, and no
 * change: its own run (`../overload/run-overload.ts`).
 */
export interface OverloadScenario {
  name: string;
  gray: false;
  overload: true;
}

export interface VisibleScenario {
  name: string;
  gray: false;
  overload?: false;
  /** Writers and gateways it starts with. */
  writers: number;
  gateways: number;
  /** When it needs a cluster: how many brokers (its default, and checked), and why. */
  brokers?: { count: number; why: string };
  /** The load goes on until --min-creates creates were made (its verdict counts them). */
  minCreates?: true;
  /** A data folder of the stack on a tmpfs of its own, mounted before the stack starts. */
  tmpfs?: { folder: DataFolder; sizeMb: number };
  /**
   * Alerts that must be firing when the change named `before` starts, on the services' series
   * scraped during the run: written as a promtool rule test in the run's folder, and run.
   */
  alerts?: readonly { alert: string; before: string }[];
  /** Makes its changes, one after another. */
  steps(context: ScenarioContext): Promise<void>;
  targets(input: VisibleInput): Target[];
}

/** Every gray scenario starts GRAY_WRITERS and GRAY_GATEWAYS (./gray/steps.ts) on one broker. */
export interface GrayScenario {
  name: string;
  gray: true;
  overload?: false;
  steps(context: GrayContext): Promise<void>;
  targets(input: GrayInput): Target[];
}

export interface ScenarioContext {
  stack: LocalStack;
  fleet: ServiceFleet;
  facts: ReturnType<typeof clusterFacts>;
  /**
   * Waits `afterMs` (the time between changes when not given), then makes one and records when it
   * started and ended.
   */
  change: (name: string, act: () => Promise<void>, afterMs?: number) => Promise<void>;
  /** Partitions held by the writer each change killed, by the change's name. */
  killedPartitions: Map<string, readonly number[]>;
  /** The URL of the gateway each change killed, by the change's name. */
  killedGateways: Map<string, string>;
  /** The data folder on a tmpfs, for a scenario that asked for one. */
  tmpfs?: TmpfsData;
}

interface GrayContext extends ScenarioContext {
  /** Each process's own path through toxiproxy. */
  links: GrayLinks;
}

export interface Target {
  target: string;
  met: boolean;
  measured: string;
}

/** What a visible scenario's targets read. */
export interface VisibleInput {
  load: readonly Answer[];
  changes: readonly Change[];
  /** Partitions held by the writer each change killed, by the change's name (writer-kill). */
  killedPartitions?: ReadonlyMap<string, readonly number[]>;
  /** The URL of the gateway each change killed, by the change's name (gateways). */
  killedGateways?: ReadonlyMap<string, string>;
  /** The command partition a request's id is produced to. */
  partitionOf?: (answer: Answer) => number;
}

/** What a gray run saw besides the answers. */
interface Observed {
  samples: readonly Sample[];
  /** The writers' group's rebalances, from the coordinator's log. */
  rebalances: readonly LogEvent[];
  serviceLogs: readonly ServiceLogLine[];
  loadStartedAt: number;
  loadEndedAt: number;
  connections: number;
  sessionTimeoutMs: number;
  replyTimeoutMs: number;
  maxInFlight: number;
}

/** A gray scenario's changes: its fault (store-slow: two), then the heal. */
export interface GrayInput extends Observed {
  load: readonly Answer[];
  changes: readonly Change[];
  partitionOf: (answer: Answer) => number;
}
