import type { TestProject } from 'vitest/node';
import { selectServers } from './support/select-servers.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    mongoUri: string;
    serverLogDir: string | null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers = await selectServers();
  console.log(
    `Tests use Kafka ${servers.kafkaBrokers} and MongoDB ${servers.mongoUri} from ${servers.source}` +
      (servers.logDir ? `; server logs in ${servers.logDir}` : ''),
  );
  project.provide('kafkaBrokers', servers.kafkaBrokers);
  project.provide('mongoUri', servers.mongoUri);
  project.provide('serverLogDir', servers.logDir);
  return () => servers.stop();
}
