import type { LocalStack } from '#local/stack.ts';
import { TOPICS } from '#shared/contracts/kafka.ts';
import { activeController } from '../../observe/timeline.ts';
import { isOutage } from '../../report/verdict.ts';
import type { ScenarioContext, VisibleScenario } from '../scenario.ts';
import { figuresOf, seconds, slowestRecovery } from './targets.ts';

/** Share of requests that may fail. */
const FAILED_SHARE = 0.01;
const RECOVERY_MS = 10_000;

/** The broker leading the most command partitions killed and restarted, then the controller. */
export const broker: VisibleScenario = {
  name: 'broker',
  gray: false,
  writers: 3,
  gateways: 2,
  brokers: { count: 3, why: 'kills one broker of three' },

  async steps({ stack, facts, change }) {
    const leader = await facts.busiestLeader(TOPICS.create);
    await killAndRestart(stack, change, leader, 'leads the most command partitions');
    const controller = activeController(stack.kafka.logFiles);
    await killAndRestart(stack, change, controller, 'the active controller');
  },

  targets({ load, changes }) {
    const outages = load.filter(isOutage).length;
    const slowest = slowestRecovery(figuresOf(load, changes));
    return [
      {
        target: `at most ${String(FAILED_SHARE * 100)} % of requests answered 503/504`,
        met: outages <= FAILED_SHARE * load.length,
        measured: `${String(outages)} of ${String(load.length)} (${percent(outages, load.length)})`,
      },
      {
        target: `recovers within ${seconds(RECOVERY_MS)}`,
        met: slowest <= RECOVERY_MS,
        measured: `slowest recovery ${seconds(slowest)}`,
      },
    ];
  },
};

async function killAndRestart(
  stack: LocalStack,
  change: ScenarioContext['change'],
  node: number,
  why: string,
): Promise<void> {
  await change(`SIGKILL Kafka node ${String(node)} (${why})`, async () => {
    const server = stack.kafka.nodes.get(node);
    if (server?.isRunning() !== true) throw new Error(`Kafka node ${String(node)} is not running`);
    server.kill('SIGKILL');
    await server.exited;
  });
  await change(`restart Kafka node ${String(node)}`, () => stack.kafka.startNode(node));
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0 %' : `${((100 * part) / whole).toFixed(2)} %`;
}
