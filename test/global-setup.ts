import type { TestProject } from 'vitest/node';
import { selectServers } from './support/servers/select-servers.ts';
import type { TestServers } from './support/servers/test-servers.ts';
import { provisionTestPackages } from './support/servers/test-packages.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    mongoUri: string;
    serverLogDir: string | null;
  }
}

/**
 * The integration and the deploy projects both name this setup, and vitest runs it once per
 * project, in the one main process but each in a context of its own (their `globalThis` differ):
 * the first starts the servers, the last teardown stops them, and `process` carries the count.
 */
interface SharedServers {
  servers: Promise<TestServers>;
  users: number;
}
const shared = process as NodeJS.Process & { plantStoreTestServers?: SharedServers | undefined };

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const first = shared.plantStoreTestServers === undefined;
  // Before any server and any test: a missing package stops the run here, named, or is installed.
  provisionTestPackages();
  const entry = (shared.plantStoreTestServers ??= { servers: selectServers(), users: 0 });
  entry.users += 1;
  const servers = await entry.servers;
  if (first) {
    console.log(
      `Tests use Kafka ${servers.kafkaBrokers} and MongoDB ${servers.mongoUri} from ${servers.source}` +
        (servers.logDir ? `; server logs in ${servers.logDir}` : ''),
    );
  }
  project.provide('kafkaBrokers', servers.kafkaBrokers);
  project.provide('mongoUri', servers.mongoUri);
  project.provide('serverLogDir', servers.logDir);
  return async () => {
    entry.users -= 1;
    if (entry.users > 0) return;
    shared.plantStoreTestServers = undefined;
    await servers.stop();
  };
}
