import { brokerCount } from '#local/kafka/broker-count.ts';
import { readFlags } from '#tooling/cli/command-line.ts';
import { scenarioNamed, SCENARIOS } from './scenarios/catalogue.ts';
import type { Scenario } from './scenarios/scenario.ts';

export interface ChaosOptions {
  /** `gray`: every gray scenario, one after another. */
  scenario: Scenario | 'gray';
  brokers: number;
  connections: number;
  /** Creates the load must reach before it stops (mixed only; 0 for the others). */
  minCreates: number;
  faultEveryMs: number;
  /** The writers' KAFKA_SESSION_TIMEOUT_MS. */
  sessionTimeoutMs: number;
  store: 'sqlite' | 'postgresql' | undefined;
  secure: boolean;
  /** Ms each way between the writers and the store (overload only; 0: none). */
  storeDelayMs: number;
}

const NAMES = SCENARIOS.map(({ name }) => name).join(', ');
const namesOf = (gray: boolean) =>
  SCENARIOS.filter((scenario) => scenario.gray === gray)
    .map(({ name }) => name)
    .join(', ');

export const USAGE = `npm run chaos -- [flags]
  --scenario mixed      ${namesOf(false)};
                        gray faults: ${namesOf(true)};
                        or gray: every gray scenario, each on a stack of its own
  --brokers 1           1, or 3 for a replicated cluster (broker: 3)
  --connections 32      clients of the load
  --min-creates 20000   mixed: the load goes on until this many creates
  --fault-every 15      seconds between changes
  --session-timeout 2000  the writers' KAFKA_SESSION_TIMEOUT_MS (1000 or more)
  --store sqlite|postgresql  FerretDB's backend (PostgreSQL where installed)
  --secure              Kafka on SASL_SSL with ACLs, the store on TLS (not the gray scenarios)
  --store-delay 0       overload: ms each way between the writer and the store, through a TCP
                        proxy (a store in another zone; T is measured with it)
  --help                this text`;

/** `npm run chaos` flags, checked: an error names the flag and what it takes; `'help'` for --help. */
export function chaosOptions(args: string[]): ChaosOptions | 'help' {
  const flags = readFlags({
    args,
    options: {
      scenario: { type: 'string', default: 'mixed' },
      brokers: { type: 'string' },
      connections: { type: 'string', default: '32' },
      'min-creates': { type: 'string', default: '20000' },
      'fault-every': { type: 'string', default: '15' },
      'session-timeout': { type: 'string', default: '2000' },
      store: { type: 'string' },
      secure: { type: 'boolean', default: false },
      'store-delay': { type: 'string', default: '0' },
    },
  });
  if (flags === 'help') return 'help';
  const { values } = flags;
  const scenario = values.scenario === 'gray' ? 'gray' : scenarioNamed(values.scenario);
  if (scenario === undefined)
    throw new Error(`--scenario takes ${NAMES}, gray; got "${values.scenario}"`);
  const visible =
    scenario === 'gray' || scenario.gray || scenario.overload === true ? undefined : scenario;
  if (visible === undefined && values.secure)
    throw new Error(
      scenario !== 'gray' && !scenario.gray
        ? `--scenario ${values.scenario} measures the plaintext stack: it does not run with --secure`
        : `--scenario ${values.scenario} puts proxies on plaintext links: it does not run with --secure`,
    );
  if (visible?.tmpfs !== undefined && process.getuid?.() !== 0)
    throw new Error(
      `--scenario ${values.scenario} mounts a tmpfs for the ${visible.tmpfs.folder === 'mongo' ? "store's" : "broker's"} data: run it as root`,
    );
  const needs = visible?.brokers;
  const brokers = brokerCount(values.brokers ?? String(needs?.count ?? 1));
  if (needs !== undefined && brokers !== needs.count)
    throw new Error(
      `--scenario ${values.scenario} ${needs.why}: run it with --brokers ${String(needs.count)}`,
    );
  const sessionTimeoutMs = Number(values['session-timeout']);
  if (!Number.isInteger(sessionTimeoutMs) || sessionTimeoutMs < 1_000)
    throw new Error(
      `--session-timeout takes milliseconds from 1000 (the local brokers' least); got "${values['session-timeout']}"`,
    );
  const { store } = values;
  if (store !== undefined && store !== 'sqlite' && store !== 'postgresql')
    throw new Error(`--store takes sqlite or postgresql; got "${store}"`);
  const storeDelayMs = Number(values['store-delay']);
  if (!/^\d+$/.test(values['store-delay']) || storeDelayMs > 10_000)
    throw new Error(
      `--store-delay takes milliseconds from 0 to 10000; got "${values['store-delay']}"`,
    );
  if (storeDelayMs > 0 && (scenario === 'gray' || scenario.overload !== true))
    throw new Error(
      `--store-delay runs with --scenario overload only; got --scenario ${values.scenario}`,
    );
  return {
    scenario,
    brokers,
    connections: positive(values.connections, '--connections'),
    minCreates: visible?.minCreates ? positive(values['min-creates'], '--min-creates') : 0,
    faultEveryMs: positive(values['fault-every'], '--fault-every') * 1_000,
    sessionTimeoutMs,
    store,
    secure: values.secure,
    storeDelayMs,
  };
}

function positive(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`${flag} takes a whole number from 1; got "${value}"`);
  return parsed;
}
