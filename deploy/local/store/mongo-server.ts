import type { ServerProcess } from '../process/server-process.ts';

export interface MongoServerOptions {
  /** Holds the data; reusing it keeps the databases. */
  dir: string;
  port: number;
  logFile: string;
  /** Listen with TLS only, with this certificate; the URI then trusts `caFile`. */
  tls?: { certFile: string; keyFile: string; caFile: string };
  /** The one user, made at the first start; every command but a handshake then needs it. */
  user?: StoreUser;
}

export interface StoreUser {
  /** Where the user is defined (the URI's path names it, as authentication source). */
  database: string;
  name: string;
  password: string;
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
