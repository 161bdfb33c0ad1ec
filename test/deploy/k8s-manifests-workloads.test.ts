import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayConfig, readGatewayConfig } from '#gateway/config.ts';
import { readWriterConfig, WriterConfig } from '#writer/config.ts';
import { topicsOf } from '#shared/service-settings.ts';
import {
  environmentOf,
  podEnvironment,
  podFieldsOf,
  resourceOf,
  resourcesOf,
  withFiles,
  workloadOf,
  workloadsOf,
  type SecretData,
  type Workload,
} from '../support/checks/deploy-manifests.ts';
import { manifestChecks, WORKLOADS, CLUSTER_CA } from '../support/checks/manifest-checks.ts';

const checks = manifestChecks();

describe('deploy/k8s', () => {
  /** The Secrets Strimzi's operators make: the cluster CA and each KafkaUser's password. */
  const strimziSecrets = (): SecretData => ({
    [CLUSTER_CA.secret]: { [CLUSTER_CA.key]: checks.caPem },
    ...Object.fromEntries(
      resourcesOf(checks.manifests, 'KafkaUser').map(({ metadata }) => [
        metadata.name,
        { password: `${metadata.name}-password` },
      ]),
    ),
  });

  it('When the PodMonitors are read, then each selects the pods of one workload and scrapes the port and path its Prometheus annotations name', () => {
    const workloads = workloadsOf(checks.manifests);
    const monitors = resourcesOf(checks.manifests, 'PodMonitor');

    expect(monitors.map(({ metadata }) => metadata.name).toSorted()).toEqual(WORKLOADS);
    for (const monitor of monitors) {
      const selected = workloads.filter(({ spec }) =>
        Object.entries(monitor.spec.selector.matchLabels).every(
          ([key, value]) => spec.template.metadata.labels[key] === value,
        ),
      );
      expect(selected.map(({ metadata }) => metadata.name)).toEqual([monitor.metadata.name]);
      const [{ spec }] = selected as [Workload];
      const annotations = spec.template.metadata.annotations;
      const [endpoint] = monitor.spec.podMetricsEndpoints;
      const port = spec.template.spec.containers[0].ports.find(
        ({ name }) => name === endpoint?.port,
      );
      expect(String(port?.containerPort)).toBe(annotations['prometheus.io/port']);
      expect(endpoint?.path).toBe(annotations['prometheus.io/path']);
    }
  });

  it('When the gateways’ StatefulSet scales to the autoscaler’s maximum, then its pods start in parallel and each names its own reply partition, its ordinal', () => {
    const gateways = workloadOf(checks.manifests, 'plant-store-gateway');
    const { maxReplicas } = resourceOf(
      checks.manifests,
      'HorizontalPodAutoscaler',
      'plant-store-gateway',
    ).spec;

    const partitions = Array.from({ length: maxReplicas }, (_, index) => {
      const environment = environmentOf(
        checks.manifests,
        gateways.spec.template.spec.containers[0],
        podFieldsOf(index),
      );
      return environment.REPLY_PARTITION;
    });

    expect(gateways.kind).toBe('StatefulSet');
    expect(gateways.spec.podManagementPolicy).toBe('Parallel');
    expect(partitions).toEqual(Array.from({ length: maxReplicas }, (_, index) => String(index)));
  });

  const container = (name: string) =>
    workloadOf(checks.manifests, name).spec.template.spec.containers[0];

  it("When the ConfigMap, the Secrets and the containers' env are read, then every key is a variable a service reads, or names its file", () => {
    const declared = new Set([
      ...Object.keys(GatewayConfig.properties),
      ...Object.keys(WriterConfig.properties),
    ]);
    const keys = [
      ...resourcesOf(checks.manifests, 'ConfigMap').flatMap((config) => Object.keys(config.data)),
      ...resourcesOf(checks.manifests, 'Secret').flatMap((secret) =>
        Object.keys(secret.stringData),
      ),
      ...WORKLOADS.flatMap((name) => (container(name).env ?? []).map((variable) => variable.name)),
    ];

    // Beside them, Node reads NODE_OPTIONS and the OpenTelemetry SDK its OTEL_* variables itself.
    const readElsewhere = (key: string) => key === 'NODE_OPTIONS' || key.startsWith('OTEL_');
    const read = (key: string) => declared.has(key) || declared.has(key.replace(/_FILE$/, ''));
    expect(keys.filter((key) => !read(key) && !readElsewhere(key))).toEqual([]);
  });

  it('When the Secrets are applied as shipped, then neither service starts: no default credential', async () => {
    const made = strimziSecrets();
    const dir = join(checks.scratch, 'shipped');

    const gateway = await podEnvironment(checks.manifests, 'plant-store-gateway', made, dir);
    const writer = await podEnvironment(checks.manifests, 'plant-store-writer', made, dir);

    expect(() => readGatewayConfig(gateway)).toThrow(/without authentication/);
    expect(() => readWriterConfig(writer)).toThrow(/MONGODB_URI must be set/);
  });

  it('When the Secrets are filled in, then both services accept the environment and files their pods get, and topics, partitions, group and ports agree with the KafkaTopics, the ScaledObject, the gateways’ autoscaler (at most one gateway per reply partition) and the probes', async () => {
    const secrets = (name: string) => resourceOf(checks.manifests, 'Secret', name).stringData;
    const filled = {
      ...strimziSecrets(),
      'plant-store-gateway-auth': {
        ...secrets('plant-store-gateway-auth'),
        AUTH_TOKENS: 'k8s-token',
      },
      'plant-store-writer-store': { MONGODB_URI: 'mongodb://store:27017/?replicaSet=rs0' },
    };
    const dir = join(checks.scratch, 'filled');

    const gateway = readGatewayConfig(
      await podEnvironment(checks.manifests, 'plant-store-gateway', filled, dir),
    );
    const writer = readWriterConfig(
      await podEnvironment(checks.manifests, 'plant-store-writer', filled, dir),
    );

    const signIn = (user: string) => ({
      brokers: ['plant-store-kafka-bootstrap:9093'],
      ssl: { ca: checks.caPem },
      sasl: { mechanism: 'scram-sha-512', username: user, password: `${user}-password` },
    });
    expect(gateway.kafka).toEqual(signIn('plant-store-gateway'));
    expect(writer.kafka).toEqual(signIn('plant-store-writer'));
    expect(gateway.authTokens).toEqual(['k8s-token']);
    expect(writer.MONGODB_URI).toBe(filled['plant-store-writer-store'].MONGODB_URI);
    await expect(withFiles({ MONGODB_URI_FILE: '/elsewhere/uri' }, {}, dir)).rejects.toThrow(
      'MONGODB_URI_FILE: nothing is mounted at /elsewhere/uri',
    );

    const topics = resourcesOf(checks.manifests, 'KafkaTopic');
    const topicNames = topics.map((topic) => topic.metadata.name).toSorted();
    expect(Object.values(topicsOf(gateway)).toSorted()).toEqual(topicNames);
    expect(Object.values(topicsOf(writer)).toSorted()).toEqual(topicNames);
    expect(topics.map((topic) => topic.spec.partitions)).toEqual(
      topics.map(() => writer.KAFKA_PARTITIONS),
    );

    const scaler = resourceOf(checks.manifests, 'ScaledObject', 'plant-store-writer');
    const writerEnvironment = environmentOf(checks.manifests, container('plant-store-writer'));
    const [{ type, metadata }] = scaler.spec.triggers;
    const fromEnvironment = (key: string) => writerEnvironment[metadata[`${key}FromEnv`] ?? ''];
    expect(scaler.spec.scaleTargetRef?.name).toBe('plant-store-writer');
    expect(scaler.spec.maxReplicaCount).toBe(writer.KAFKA_PARTITIONS);
    // Gateway N reads reply partition N, and one past the last partition does not start.
    const gateways = resourceOf(checks.manifests, 'HorizontalPodAutoscaler', 'plant-store-gateway');
    const replies = resourceOf(checks.manifests, 'KafkaTopic', topicsOf(gateway).replies);
    expect(gateways.spec.scaleTargetRef).toMatchObject({
      kind: 'StatefulSet',
      name: 'plant-store-gateway',
    });
    expect(gateways.spec.maxReplicas).toBeLessThanOrEqual(replies.spec.partitions);
    expect(type).toBe('kafka');
    expect({
      brokers: fromEnvironment('bootstrapServers'),
      group: fromEnvironment('consumerGroup'),
      topic: fromEnvironment('topic'),
    }).toEqual({
      brokers: writer.KAFKA_BROKERS,
      group: writer.KAFKA_WRITER_GROUP,
      topic: topicsOf(writer).create,
    });

    /** The port Prometheus is told to scrape, and the container's ports by name. */
    const ports = (name: string) => {
      const workload = workloadOf(checks.manifests, name);
      return {
        scraped: Number(workload.spec.template.metadata.annotations['prometheus.io/port']),
        ...Object.fromEntries(
          workload.spec.template.spec.containers[0].ports.map((port) => [
            port.name,
            port.containerPort,
          ]),
        ),
      };
    };
    expect(ports('plant-store-gateway')).toEqual({
      scraped: gateway.METRICS_PORT,
      http: gateway.PORT,
      metrics: gateway.METRICS_PORT,
    });
    expect(ports('plant-store-writer')).toEqual({
      scraped: writer.METRICS_PORT,
      metrics: writer.METRICS_PORT,
    });
  });
});
