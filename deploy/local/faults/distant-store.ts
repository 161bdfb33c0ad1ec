import { join } from 'node:path';
import { openStoreLink } from './gray-links.ts';
import { provisionToxiproxy, startToxiproxy } from './toxiproxy.ts';
import { cacheRoot } from '../provision/paths.ts';
import { serviceConnections, type ServiceConnections } from '../secure-stack.ts';
import type { LocalStack } from '../stack.ts';

/** What of a stack a distant store needs: its store, its principals, and how it stops. */
type Stack = Pick<LocalStack, 'kafkaBrokers' | 'mongoUri' | 'secured' | 'stop'>;

/** A stack whose store its clients reach from afar (or as it is). */
export interface ReachedStore {
  /** A MONGODB_URI of the store (the stack's, or a principal's), as its clients reach it. */
  reach: (uri: string) => string;
  /** The services' connections to the stack, the writers' store reached as `reach` does. */
  connections: () => Promise<ServiceConnections>;
  /** Stops the proxy, then the stack. */
  stop: () => Promise<void>;
}

/**
 * The store of `stack`, reached through a TCP proxy that delivers every chunk `delayMs` late in
 * each direction (`--store-delay`), as a store in another zone would be; as it is for 0. When the
 * proxy cannot start, the stack is stopped.
 */
export async function storeReached(
  stack: Stack,
  delayMs: number,
  logDir: string,
): Promise<ReachedStore> {
  const reachedThrough = (reach: (uri: string) => string, stopProxy: () => Promise<void>) => ({
    reach,
    async connections() {
      const connections = await serviceConnections(stack);
      const writerStore = reach(connections.writer.MONGODB_URI ?? stack.mongoUri);
      return { ...connections, writer: { ...connections.writer, MONGODB_URI: writerStore } };
    },
    async stop() {
      await stopProxy();
      await stack.stop();
    },
  });
  if (delayMs === 0)
    return reachedThrough(
      (uri) => uri,
      async () => {},
    );
  try {
    const binary = await provisionToxiproxy(cacheRoot(), join(logDir, 'provision.log'));
    const toxiproxy = await startToxiproxy({ binary, logFile: join(logDir, 'toxiproxy.log') });
    try {
      const link = await openStoreLink(toxiproxy.client, 'distant', stack.mongoUri);
      for (const stream of ['upstream', 'downstream'] as const)
        await link.faults.add({ type: 'latency', stream, attributes: { latency: delayMs } });
      const { host } = new URL(link.uri);
      // The same store under another principal or with TLS: the same proxy, the same direct connection.
      const reach = (uri: string) => {
        const through = new URL(uri);
        through.host = host;
        through.searchParams.set('directConnection', 'true');
        return through.toString();
      };
      return reachedThrough(reach, () => toxiproxy.stop());
    } catch (error) {
      await toxiproxy.stop();
      throw error;
    }
  } catch (error) {
    await stack.stop();
    throw error;
  }
}
