import { parseArgs } from 'node:util';
import { brokerCount } from '#local/kafka/broker-count.ts';
import { isGray, SCENARIOS, type Scenario } from './targets.ts';

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
}

/** `npm run chaos` flags, checked: an error names the flag and what it takes. */
export function chaosOptions(args: string[]): ChaosOptions {
  const { values } = parseArgs({
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
    },
  });
  const scenario = [...SCENARIOS, 'gray' as const].find((name) => name === values.scenario);
  if (scenario === undefined)
    throw new Error(`--scenario takes ${SCENARIOS.join(', ')}, gray; got "${values.scenario}"`);
  const gray = scenario === 'gray' || isGray(scenario);
  if (gray && values.secure)
    throw new Error(
      `--scenario ${scenario} puts proxies on plaintext links: it does not run with --secure`,
    );
  const brokers = brokerCount(values.brokers ?? (scenario === 'broker' ? '3' : '1'));
  if (scenario === 'broker' && brokers !== 3)
    throw new Error('--scenario broker kills one broker of three: run it with --brokers 3');
  const sessionTimeoutMs = Number(values['session-timeout']);
  if (!Number.isInteger(sessionTimeoutMs) || sessionTimeoutMs < 1_000)
    throw new Error(
      `--session-timeout takes milliseconds from 1000 (the local brokers' least); got "${values['session-timeout']}"`,
    );
  const { store } = values;
  if (store !== undefined && store !== 'sqlite' && store !== 'postgresql')
    throw new Error(`--store takes sqlite or postgresql; got "${store}"`);
  return {
    scenario,
    brokers,
    connections: positive(values.connections, '--connections'),
    minCreates: scenario === 'mixed' ? positive(values['min-creates'], '--min-creates') : 0,
    faultEveryMs: positive(values['fault-every'], '--fault-every') * 1_000,
    sessionTimeoutMs,
    store,
    secure: values.secure,
  };
}

function positive(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new Error(`${flag} takes a whole number from 1; got "${value}"`);
  return parsed;
}
