import type { IHeaders } from 'kafkajs';

/**
 * A header's value as the services read it: kafkajs hands a header sent more than once as an
 * array, and the first one counts, as Spring's and NestJS's clients read it.
 */
export function firstHeader(value: IHeaders[string]): Buffer | string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  return firstHeader(headers?.[name])?.toString();
}

/** The offset to read or commit once the message at `offset` is done with. */
export function nextOffset(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}

/** One key per partition of a topic, for maps of partitions across topics. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${String(partition)}`;
}

/** Items grouped by topic, topics in the order first seen, items in their order. */
export function groupByTopic<Item>(
  entries: Iterable<readonly [string, Item]>,
): { topic: string; items: Item[] }[] {
  const byTopic = new Map<string, Item[]>();
  for (const [topic, item] of entries) {
    const items = byTopic.get(topic);
    if (items === undefined) byTopic.set(topic, [item]);
    else items.push(item);
  }
  return [...byTopic].map(([topic, items]) => ({ topic, items }));
}
