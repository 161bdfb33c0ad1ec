import type { LinkFaults } from '#local/faults/gray-links.ts';

/** Every gray scenario runs three writers (one can be cut off) and two gateways. */
export const GRAY_WRITERS = ['writer-1', 'writer-2', 'writer-3'] as const;
export const GRAY_GATEWAYS = ['gateway-1', 'gateway-2'] as const;

/** The process each one-process fault is put on; its gateway is index 0 of the clients' rotation. */
export const FAULTED_WRITER = 'writer-1';
export const FAULTED_GATEWAY = 'gateway-1';
export const FAULTED_GATEWAY_INDEX = 0;

/** How long a fault lasts (issue 29's table). */
export const FAULT_MS = 60_000;

/** `act` on every link at once. */
export async function each(
  links: readonly LinkFaults[],
  act: (link: LinkFaults) => Promise<void>,
): Promise<void> {
  await Promise.all(links.map(act));
}
