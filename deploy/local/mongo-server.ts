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
  stop(): Promise<void>;
}
