import type { KafkaMessage } from 'kafkajs';
import type { Flight } from './lane-state.ts';

/** What orders commands beyond their partition (a plant's id). */
export type KeyOf = (message: KafkaMessage) => string | undefined;

const keysOf = (flight: Flight, keyOf: KeyOf): Set<string> => {
  flight.keys ??= new Set(flight.work.messages.flatMap((message) => keyOf(message) ?? []));
  return flight.keys;
};

/** The works in hand (`flights`) before `flight` that hold one of its keys: it waits for them. */
export function earlierSharingKeys(
  flights: readonly Flight[],
  flight: Flight,
  keyOf: KeyOf,
): Flight[] {
  const earlier = flights.filter((each) => each.state === 'answering' && each !== flight);
  if (earlier.length === 0) return [];
  const keys = keysOf(flight, keyOf);
  return earlier.filter((each) => [...keysOf(each, keyOf)].some((key) => keys.has(key)));
}
