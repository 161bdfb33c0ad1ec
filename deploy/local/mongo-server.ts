import type { ServerProcess } from './server-process.ts';

export interface MongoServerOptions {
  /** Holds the data; reusing it keeps the databases. */
  dir: string;
  port: number;
  logFile: string;
  /** Listen with TLS only, with this certificate; the URI then trusts `caFile`. */
  tls?: { certFile: string; keyFile: string; caFile: string };
}

export interface MongoServer {
  readonly uri: string;
  readonly process: ServerProcess;
  /** The server FerretDB stores its data in, when it is a process of its own (PostgreSQL). */
  readonly backend?: ServerProcess;
  /**
   * Brings the plants' table to the state a store that grew over days is in (PostgreSQL:
   * vacuumed and analysed, as autovacuum would have, and checkpointed) after a bulk load.
   */
  settle?(): Promise<void>;
  stop(): Promise<void>;
}
