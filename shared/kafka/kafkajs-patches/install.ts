import { rediscoverLostCoordinators } from './lost-coordinators.ts';
import { checkHeldRequestsOnlyWhenHeld } from './request-queue-timer.ts';
import { pauseFetchersAfterStop } from './stopped-fetchers.ts';

/**
 * Every change this project makes to kafkajs's behaviour, for every client of the process; each
 * patch is applied once, and refused for any kafkajs but the version it was checked against
 * (version-guard.ts). README.md lists them.
 */
export function patchKafkajs(): void {
  rediscoverLostCoordinators();
  checkHeldRequestsOnlyWhenHeld();
  pauseFetchersAfterStop();
}
