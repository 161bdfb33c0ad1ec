import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { assertPortFree, freePort, LOOPBACK } from '../provision/ports.ts';
import { isProvisioned, provisionOnce } from '../provision/provision-cache.ts';
import { GO_PACKAGES_COMPILED, runLogged } from '../process/run-logged.ts';
import { startServerProcess, type ServerProcess } from '../process/server-process.ts';
import { toxiproxyClient, type ToxiproxyClient } from './toxiproxy-client.ts';
import { findOnPath, GO, MissingToolError } from '../provision/tools.ts';
import { waitUntilReady } from '../process/wait-until-ready.ts';

export const TOXIPROXY_VERSION = 'v2.5.0';
export const TOXIPROXY_CACHE_NAME = `toxiproxy-${TOXIPROXY_VERSION}`;
const MODULE = 'github.com/Shopify/toxiproxy/v2';

const GO_FOR_TOXIPROXY = {
  ...GO,
  neededFor: 'building toxiproxy (once, then cached) for the gray-fault tests and chaos scenarios',
};

/**
 * Builds toxiproxy's server once per machine; returns the binary. Unlike FerretDB's, its module
 * builds with `go install module@version` as it is; the version it reports is set at link time,
 * as its own release build does, or `GET /version` would answer "git".
 */
export async function provisionToxiproxy(cache: string, logFile: string): Promise<string> {
  if (!isProvisioned(cache, TOXIPROXY_CACHE_NAME) && findOnPath('go') === null)
    throw new MissingToolError([GO_FOR_TOXIPROXY], null);
  const home = await provisionOnce(cache, TOXIPROXY_CACHE_NAME, async (dir) => {
    await runLogged(
      'go',
      [
        'install',
        '-v',
        '-trimpath',
        `-ldflags=-X ${MODULE}.Version=${TOXIPROXY_VERSION}`,
        `${MODULE}/cmd/server@${TOXIPROXY_VERSION}`,
      ],
      {
        cwd: dir,
        logFile,
        env: { ...process.env, GOBIN: dir },
        progress: { step: `building toxiproxy ${TOXIPROXY_VERSION}`, counts: GO_PACKAGES_COMPILED },
      },
    );
    // Named as its release binaries are: `server` says nothing in a process list.
    await rename(join(dir, 'server'), join(dir, 'toxiproxy-server'));
  });
  return join(home, 'toxiproxy-server');
}

export interface ToxiproxyOptions {
  /** The binary from `provisionToxiproxy`. */
  binary: string;
  /** Its HTTP API's port on 127.0.0.1; a free one when not given. */
  port?: number;
  logFile: string;
}

export interface ToxiproxyServer {
  /** The HTTP API, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly client: ToxiproxyClient;
  readonly process: ServerProcess;
  stop(): Promise<void>;
}

/**
 * Starts toxiproxy with no proxies; it is up once its API answers. Its proxies live as long as the
 * process: nothing is kept between starts.
 */
export async function startToxiproxy(options: ToxiproxyOptions): Promise<ToxiproxyServer> {
  // A port in use would have the readiness check answered by whatever holds it.
  if (options.port !== undefined)
    await assertPortFree(options.port, 'Stop what listens there, or leave the port out.');
  const port = options.port ?? (await freePort());
  const server = startServerProcess({
    name: `toxiproxy ${TOXIPROXY_VERSION}`,
    command: options.binary,
    args: ['-host', LOOPBACK, '-port', String(port)],
    // Info logs each connection a proxy accepts and each toxic: what a gray test's failure needs.
    env: { ...process.env, LOG_LEVEL: 'info' },
    logFile: options.logFile,
    stopTimeoutMs: 5_000,
  });
  const url = `http://${LOOPBACK}:${String(port)}`;
  const client = toxiproxyClient(url);
  await waitUntilReady(server, () => client.version().then(() => undefined), 15_000);
  return { url, client, process: server, stop: () => server.stop() };
}
