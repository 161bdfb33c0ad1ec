import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stateRoot } from '#local/provision/paths.ts';
import { serviceConnections } from '#local/secure-stack.ts';
import { startServices, type Services } from '#local/services.ts';
import { startLocalStack, type LocalStack } from '#local/stack.ts';
import type { KafkaConnection } from '#shared/kafka/connection.ts';
import { TOKEN } from '../support/clients/token.ts';
import { securedStackLacks } from '../support/servers/local-servers.ts';
import { provisionTestPackages } from '../support/servers/test-packages.ts';

export interface SecuredStackContext {
  /** The stack's `--dir`: `ca.pem` and the principals' `.env` files. */
  dir: string;
  /** The brokers' own super user, for a test's set-up (topics of its own, reading the DLQ). */
  admin: KafkaConnection;
  logDir: string;
  /** One gateway and one writer, each with its principal's `.env` file. */
  gatewayUrl: string;
  writerLog: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    securedStack: SecuredStackContext | null;
  }
}

/**
 * One secured stack (SASL_SSL, ACLs, a TLS store) with a gateway and a writer, for the `secured`
 * project's tests.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  provisionTestPackages();
  if (securedStackLacks() !== null) {
    project.provide('securedStack', null);
    return () => Promise.resolve();
  }
  const dir = join(
    stateRoot,
    'test-runs',
    `${new Date().toISOString().replaceAll(':', '-')}-${process.pid}-secured`,
  );
  const stack = await startLocalStack({ dir, secure: true });
  console.log(`Secured tests use Kafka ${stack.kafkaBrokers} (SASL_SSL); logs in ${stack.logDir}`);
  const services = await startServices({
    env: { ...process.env, AUTH_TOKENS: TOKEN },
    connections: await serviceConnections(stack),
    logDir: stack.logDir,
    writers: 1,
    gateways: 1,
  }).catch(async (error: unknown) => {
    await stack.stop();
    throw error;
  });
  project.provide('securedStack', contextOf(dir, stack, services));
  return async () => {
    await Promise.all([...services.gateways, ...services.writers].map((each) => each.stop()));
    await stack.stop();
  };
}

/** What the tests are given: the principals' files, the super user and the services. */
function contextOf(dir: string, stack: LocalStack, services: Services): SecuredStackContext {
  const [writer] = services.writers;
  const [gatewayUrl] = services.urls;
  if (writer === undefined || gatewayUrl === undefined) throw new Error('no services started');
  const { brokers, ssl, sasl } = stack.kafka.admin;
  return {
    dir,
    // kafkajs adds a function to the `sasl` object it is given, which a provided value cannot hold.
    admin: {
      brokers,
      ...(ssl && { ssl }),
      ...(sasl && {
        sasl: { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password },
      }),
    },
    logDir: stack.logDir,
    gatewayUrl,
    writerLog: writer.logFile,
  };
}
