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
