import { Kafka, logLevel } from 'kafkajs';
import type { KafkaConnection } from '#shared/kafka/connection.ts';

/**
 * Resolves once the cluster has a controller, `nodes` registered brokers and a loaded group
 * coordinator; otherwise the error says which is missing.
 */
export async function clusterIsReady(connection: KafkaConnection, nodes: number): Promise<void> {
  const admin = new Kafka({
    clientId: 'plant-store-readiness',
    ...connection,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.controller === null) throw new Error('no active controller yet');
    if (cluster.brokers.length < nodes)
      throw new Error(`${String(cluster.brokers.length)} of ${String(nodes)} brokers registered`);
    // Creates the offsets topic and fails until its coordinator has loaded, so that the first
    // consumer group of a test does not crash with "The coordinator is loading".
    await admin.describeGroups(['plant-store-readiness']);
  } finally {
    await admin.disconnect();
  }
}
