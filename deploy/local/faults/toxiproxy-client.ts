/**
 * A typed client of toxiproxy's HTTP API (v2): proxies, and the toxics that make their links slow,
 * silent or half-cut. docs/decisions/0049-gray-fault-tooling.md says why it is not an npm package.
 */

/** Each toxic type with its attributes (times in ms); the API checks nothing beyond the JSON. */
type ToxicKind =
  /** Delays every chunk of data by `latency` ± `jitter`. */
  | { type: 'latency'; attributes: { latency: number; jitter?: number } }
  /** Lets through at most `rate` KB/s. */
  | { type: 'bandwidth'; attributes: { rate: number } }
  /** Lets no data through and closes the connection after `timeout`; 0 stalls it until removed. */
  | { type: 'timeout'; attributes: { timeout: number } }
  /** Resets the connection (TCP RST) after `timeout`, at once for 0. */
  | { type: 'reset_peer'; attributes: { timeout: number } }
  /** Holds the close of the connection back for `delay`. */
  | { type: 'slow_close'; attributes: { delay: number } }
  /** Closes the connection once `bytes` have gone through. */
  | { type: 'limit_data'; attributes: { bytes: number } };

/** `upstream`: client to server; `downstream`: server to client. */
type ToxicStream = 'upstream' | 'downstream';

export type ToxicSpec = ToxicKind & {
  /** `<type>_<stream>` when not given. */
  name?: string;
  stream?: ToxicStream;
  /** The share of the proxy's connections the toxic applies to: 0 to 1, 1 when not given. */
  toxicity?: number;
};

type Toxic = ToxicKind & { name: string; stream: ToxicStream; toxicity: number };

interface ProxySpec {
  name: string;
  /** `host:port` the proxy listens on; port 0 lets the system choose (see `listen` returned). */
  listen: string;
  /** `host:port` every accepted connection is forwarded to, dialled once per connection. */
  upstream: string;
  enabled?: boolean;
}

export interface Proxy {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: Toxic[];
}

export class ToxiproxyError extends Error {
  readonly status: number;
  constructor(status: number, request: string, reason: string) {
    super(`toxiproxy answered ${String(status)} to ${request}: ${reason}`);
    this.name = 'ToxiproxyError';
    this.status = status;
  }
}

export interface ToxiproxyClient {
  readonly url: string;
  version(): Promise<string>;
  createProxy(spec: ProxySpec): Promise<Proxy>;
  getProxy(name: string): Promise<Proxy>;
  /** Closes the proxy's connections and its listener. */
  deleteProxy(name: string): Promise<void>;
  /** A disabled proxy closes its connections and refuses new ones: a cut the client sees. */
  setEnabled(name: string, enabled: boolean): Promise<Proxy>;
  addToxic(proxy: string, toxic: ToxicSpec): Promise<Toxic>;
  /** Changes a toxic's toxicity or some of its attributes; the others keep their values. */
  updateToxic(
    proxy: string,
    name: string,
    changes: { toxicity?: number; attributes?: Record<string, number> },
  ): Promise<Toxic>;
  removeToxic(proxy: string, name: string): Promise<void>;
  /** Enables every proxy and removes every toxic. */
  reset(): Promise<void>;
}

/** `url`: the API's base, `http://127.0.0.1:<port>`. */
export function toxiproxyClient(url: string): ToxiproxyClient {
  const send = async (method: string, path: string, body?: unknown): Promise<string> => {
    const response = await fetch(`${url}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await response.text();
    if (!response.ok)
      throw new ToxiproxyError(response.status, `${method} ${path}`, errorReason(text));
    return text;
  };
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const text = await send(method, path, body);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
  const proxyPath = (name: string) => `/proxies/${encodeURIComponent(name)}`;
  const toxicPath = (proxy: string, name: string) =>
    `${proxyPath(proxy)}/toxics/${encodeURIComponent(name)}`;
  return {
    url,
    version: async () => (await send('GET', '/version')).trim(),
    createProxy: (spec) => call('POST', '/proxies', { enabled: true, ...spec }),
    getProxy: (name) => call('GET', proxyPath(name)),
    deleteProxy: (name) => call('DELETE', proxyPath(name)),
    setEnabled: (name, enabled) => call('POST', proxyPath(name), { enabled }),
    addToxic: (proxy, toxic) =>
      call('POST', `${proxyPath(proxy)}/toxics`, { stream: 'downstream', toxicity: 1, ...toxic }),
    updateToxic: (proxy, name, changes) => call('POST', toxicPath(proxy, name), changes),
    removeToxic: (proxy, name) => call('DELETE', toxicPath(proxy, name)),
    reset: () => call('POST', '/reset'),
  };
}

/** Toxiproxy answers an error as `{"error": "...", "status": 409}`. */
function errorReason(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON: a proxy or server in between; its text says more than nothing.
  }
  return text.trim() === '' ? '(no body)' : text.trim();
}
