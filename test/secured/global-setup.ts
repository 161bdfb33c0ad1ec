import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { GATEWAY_MAIN, startNodeService, WRITER_MAIN } from '../../deploy/local/node-service.ts';
import { stateRoot } from '../../deploy/local/paths.ts';
import { freePort } from '../../deploy/local/ports.ts';
import { groupIsStable, httpIsReady } from '../../deploy/local/readiness.ts';
import { serviceConnections } from '../../deploy/local/secure-stack.ts';
import type { ServerProcess } from '../../deploy/local/server-process.ts';
import { startLocalStack, type LocalStack } from '../../deploy/local/stack.ts';
import { waitUntilReady } from '../../deploy/local/wait-until-ready.ts';
import { kafkaConnectionFromEnv } from '../../shared/config.ts';
import { WRITER_GROUP } from '../../shared/contracts/kafka.ts';
import type { KafkaConnection } from '../../shared/kafka-connection.ts';
import { TOKEN } from '../support/token.ts';
import { securedStackUnavailable } from '../support/local-servers.ts';

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
  if (securedStackUnavailable !== null) {
    project.provide('securedStack', null);
    return () => Promise.resolve();
  }
  const dir = join(
    stateRoot,
    'test-runs',
    `${new Date().toISOString().replaceAll(':', '-')}-${process.pid}-secured`,
  );
  const stack = await startLocalStack({ dir, secure: true });
  const services: ServerProcess[] = [];
  const stopAll = async () => {
    await Promise.all(services.map((service) => service.stop()));
    await stack.stop();
  };
  try {
    const context = await startServices(dir, stack, services);
    project.provide('securedStack', context);
    return stopAll;
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** A writer and a gateway as their principals; each is pushed to `started` as it starts. */
async function startServices(
  dir: string,
  stack: LocalStack,
  started: ServerProcess[],
): Promise<SecuredStackContext> {
  const secured = stack.secured;
  if (secured === undefined) throw new Error('the stack started without --secure');
  console.log(`Secured tests use Kafka ${stack.kafkaBrokers} (SASL_SSL); logs in ${stack.logDir}`);
  const port = await freePort();
  const gatewayUrl = `http://127.0.0.1:${String(port)}`;
  const connections = await serviceConnections(stack);
  const writer = startNodeService({
    name: 'writer',
    script: WRITER_MAIN,
    env: { ...process.env, ...connections.writer, METRICS_PORT: '0' },
    logDir: stack.logDir,
  });
  started.push(writer);
  const gateway = startNodeService({
    name: 'gateway',
    script: GATEWAY_MAIN,
    env: { ...process.env, ...connections.gateway, AUTH_TOKENS: TOKEN, PORT: String(port) },
    logDir: stack.logDir,
  });
  started.push(gateway);
  const writerConnection = kafkaConnectionFromEnv(connections.writer);
  await waitUntilReady(writer, () => groupIsStable(writerConnection, WRITER_GROUP), 60_000);
  await waitUntilReady(gateway, () => httpIsReady(gatewayUrl), 60_000);
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
