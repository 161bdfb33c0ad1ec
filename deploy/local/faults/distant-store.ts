import { join } from 'node:path';
import { openStoreLink } from './gray-links.ts';
import { provisionToxiproxy, startToxiproxy } from './toxiproxy.ts';
import { cacheRoot } from '../provision/paths.ts';

/** The store as the variants reach it. */
export interface ReachedStore {
  /** A MONGODB_URI of the store (the stack's, or a principal's), as the variants reach it. */
  reach: (uri: string) => string;
  stop(): Promise<void>;
}

/**
 * The store of `storeUri`, reached through a TCP proxy that delivers every chunk `delayMs` late in
 * each direction (`--store-delay`), as a store in another zone would be; as it is for 0.
 */
export async function storeReached(
  storeUri: string,
  delayMs: number,
  logDir: string,
): Promise<ReachedStore> {
  if (delayMs === 0) return { reach: (uri) => uri, stop: async () => {} };
  const binary = await provisionToxiproxy(cacheRoot(), join(logDir, 'provision.log'));
  const toxiproxy = await startToxiproxy({ binary, logFile: join(logDir, 'toxiproxy.log') });
  try {
    const link = await openStoreLink(toxiproxy.client, 'bench', storeUri);
    for (const stream of ['upstream', 'downstream'] as const)
      await link.faults.add({ type: 'latency', stream, attributes: { latency: delayMs } });
    const { host } = new URL(link.uri);
    return {
      // The same store under another principal or with TLS: the same proxy, the same direct connection.
      reach: (uri) => {
        const through = new URL(uri);
        through.host = host;
        through.searchParams.set('directConnection', 'true');
        return through.toString();
      },
      stop: () => toxiproxy.stop(),
    };
  } catch (error) {
    await toxiproxy.stop();
    throw error;
  }
}
