interface Pending<Item> {
  item: Item;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces sends without a timer: a call made while nothing is in flight is sent at once (no
 * added latency when idle); calls made while a send is in flight wait for it and then go out
 * together in the next one, so under load each round trip carries everything that queued.
 * Each call settles with the outcome of the send that carried it.
 */
export function sendBatcher<Item>(
  sendAll: (items: Item[]) => Promise<void>,
  maxBatchSize = 500,
): (item: Item) => Promise<void> {
  const queue: Pending<Item>[] = [];
  let sending = false;

  const drain = async () => {
    sending = true;
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatchSize);
      try {
        await sendAll(batch.map(({ item }) => item));
        for (const { resolve } of batch) resolve();
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    sending = false;
  };

  return (item) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!sending) void drain();
    });
}
