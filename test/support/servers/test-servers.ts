/** Kafka and a MongoDB-protocol server for one test run, wherever they were started. */
export interface TestServers {
  readonly kafkaBrokers: string;
  readonly mongoUri: string;
  /** Where they came from, for the run's first line and for failure messages. */
  readonly source: string;
  readonly logDir: string | null;
  stop(): Promise<void>;
}
