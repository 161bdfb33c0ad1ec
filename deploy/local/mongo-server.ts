import type { ServerProcess } from './server-process.ts';

export interface MongoServerOptions {
  /** Holds the data; reusing it keeps the databases. */
  dir: string;
  port: number;
  logFile: string;
}

export interface MongoServer {
  readonly uri: string;
  readonly process: ServerProcess;
  /** The server FerretDB stores its data in, when it is a process of its own (PostgreSQL). */
  readonly backend?: ServerProcess;
  stop(): Promise<void>;
}
