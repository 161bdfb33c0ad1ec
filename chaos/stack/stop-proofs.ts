import { connect } from 'node:net';
import { processState } from '#local/process/process-identity.ts';
import type { ExitStatus, ServerProcess } from '#local/process/server-process.ts';
import { FaultNotMade } from '../scenarios/fault-not-made.ts';

// A stop or a kill the fleet made is proved before the run goes on, as the gray faults are: a
// signal that reached a wrapper and not the service, or a service that had exited before it, would
// leave targets judging a fleet that never changed.

/**
 * The service is gone: killed by SIGKILL when sent SIGKILL (after SIGTERM it may have exited or
 * been killed after its grace), and its pid no longer runs.
 */
export function provedEnded(
  scenario: string,
  service: Pick<ServerProcess, 'name' | 'pid'>,
  signal: 'SIGTERM' | 'SIGKILL',
  status: ExitStatus,
): void {
  const how =
    status.signal === null
      ? `exited with code ${String(status.code)}`
      : `ended by ${status.signal}`;
  if (signal === 'SIGKILL' && status.signal !== 'SIGKILL')
    throw new FaultNotMade(scenario, `${service.name} was sent SIGKILL but ${how}`);
  const state = processState(service.pid);
  if (state !== null)
    throw new FaultNotMade(
      scenario,
      `${service.name} ${how}, yet its pid ${String(service.pid)} still runs (state ${state})`,
    );
}

/** A writer that was stopped held partitions: its stop moved work to the others. */
export function provedHeldPartitions(
  scenario: string,
  service: Pick<ServerProcess, 'name'>,
  partitions: readonly number[],
): void {
  if (partitions.length === 0)
    throw new FaultNotMade(scenario, `${service.name} held no partition of the create topic`);
}

/** Nothing listens at `url` any more: a new connection is refused. */
export async function provedNotListening(scenario: string, url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const outcome = await new Promise<string>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve('accepted');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      resolve(error.code ?? error.message);
    });
  });
  if (outcome !== 'ECONNREFUSED')
    throw new FaultNotMade(
      scenario,
      `${url} still takes connections after its gateway was killed (${outcome})`,
    );
}
