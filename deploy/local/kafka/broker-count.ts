/** `--brokers` of the local scripts: 1 (the default) or a replicated cluster of 3. */
export function brokerCount(value: string | undefined): number {
  const count = Number(value ?? '1');
  if (count !== 1 && count !== 3)
    throw new Error(
      `--brokers takes 1 (one node) or 3 (a replicated cluster), got "${String(value)}"`,
    );
  return count;
}
