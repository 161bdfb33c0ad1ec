import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRINCIPALS } from '#local/kafka/acls.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { GatewayConfig, readGatewayConfig } from '#gateway/config.ts';
import { readWriterConfig, WriterConfig } from '#writer/config.ts';
import { topicsOf } from '#shared/config.ts';
import { customResourceSchema } from '../support/checks/crd-schema.ts';
import {
  environmentOf,
  K8S_DIR,
  kustomizationResources,
  podEnvironment,
  podFieldsOf,
  resourceOf,
  resourcesOf,
  secretFilesOf,
  withFiles,
  workloadOf,
  workloadsOf,
  type Resource,
  type SecretData,
  type Workload,
} from '../support/checks/deploy-manifests.ts';
import type { CustomKind } from '../support/checks/deploy-validators.ts';
import {
  manifestChecks,
  scratchFile,
  checkJsonSchema,
  kubernetesValidate,
  KUBERNETES_VERSIONS,
  grantsOf,
  sortedGrants,
} from '../support/checks/manifest-checks.ts';

const checks = manifestChecks();
const CUSTOM_KINDS: readonly CustomKind[] = [
  'KafkaTopic',
  'KafkaUser',
  'ScaledObject',
  'TriggerAuthentication',
  'PrometheusRule',
  'PodMonitor',
];

describe('deploy/k8s', () => {
  const builtIn = () =>
    checks.manifests.flatMap(({ resources }) =>
      resources.filter((resource) => !(CUSTOM_KINDS as readonly string[]).includes(resource.kind)),
    );
  const WORKLOADS = ['plant-store-gateway', 'plant-store-writer'];
  const CLUSTER_CA = { secret: 'plant-store-cluster-ca-cert', key: 'ca.crt', readOnly: true };
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

  it('When kustomization.yaml is applied, then it applies every manifest in the directory', async () => {
    const files = (await readdir(join(projectRoot, K8S_DIR))).filter(
      (name) => name.endsWith('.yaml') && name !== 'kustomization.yaml',
    );

    expect((await kustomizationResources()).toSorted()).toEqual(files.toSorted());
  });

  it('When the manifests are validated strictly against the Kubernetes OpenAPI schemas, then every built-in resource passes and only the custom resources are left to their CRDs', async () => {
    const run = await kubernetesValidate(
      checks,
      checks.manifests.map(({ file }) => file),
    );

    const lines = run.output.trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('INFO') && !line.startsWith('WARN'))).toEqual(
      [],
    );
    expect(lines.filter((line) => line.includes(' passed for resource '))).toHaveLength(
      builtIn().length * KUBERNETES_VERSIONS.length,
    );
    const unknownKinds = lines.flatMap((line) =>
      line.startsWith('WARN') ? [/find schema for kind (\w+)/.exec(line)?.[1]] : [],
    );
    expect(new Set(unknownKinds)).toEqual(new Set(CUSTOM_KINDS));
    expect(run.exitCode).toBe(0);
  });

  it('When a manifest has a wrong type, misses a required field or has an unknown one, then kubernetes-validate refuses it', async () => {
    const config = structuredClone(resourceOf(checks.manifests, 'ConfigMap', 'plant-store'));
    (config.data as Record<string, unknown>).KAFKA_PARTITIONS = 12;
    const nameless = structuredClone(
      resourceOf(checks.manifests, 'Deployment', 'plant-store-writer'),
    );
    delete nameless.spec.template.spec.containers[0].name;
    const unknownField = structuredClone(workloadOf(checks.manifests, 'plant-store-gateway'));
    Object.assign(unknownField.spec, { replica: 2 });

    const run = await kubernetesValidate(
      checks,
      [
        await scratchFile(checks, 'configmap-number.json', config),
        await scratchFile(checks, 'deployment-nameless.json', nameless),
        await scratchFile(checks, 'statefulset-unknown-field.json', unknownField),
      ],
      ['1.37.0'],
    );

    expect(run.output).toContain("data.KAFKA_PARTITIONS: 12 is not of type 'string'");
    expect(run.output).toContain("spec.template.spec.containers.0: 'name' is a required property");
    expect(run.output).toContain("('replica' was unexpected)");
    expect(run.exitCode).toBe(1);
  });

  /** Writes the CRD's schema and each custom resource of `kind` to files check-jsonschema reads. */
  async function customResourceCheck(kind: CustomKind, resources: Resource[]) {
    const [first] = resources;
    if (first === undefined) throw new Error(`No ${kind} in ${K8S_DIR}`);
    const crd = await readFile(checks.validators.crds[kind], 'utf8');
    const schema = await scratchFile(
      checks,
      `${kind}.schema.json`,
      customResourceSchema(crd, first.apiVersion),
    );
    const files = await Promise.all(
      resources.map((resource, index) => scratchFile(checks, `${kind}-${index}.json`, resource)),
    );
    return checkJsonSchema(checks, ['--schemafile', schema, ...files]);
  }

  // One check-jsonschema run per test: each run starts Python and reads a CRD of its own.
  it.for(CUSTOM_KINDS)(
    'When each %s is validated against its CRD schema (Strimzi, KEDA or the Prometheus Operator), then it passes',
    async (kind) => {
      const run = await customResourceCheck(kind, resourcesOf(checks.manifests, kind));

      expect(run.output, kind).toContain('ok -- validation done');
      expect(run.exitCode, kind).toBe(0);
    },
  );

  it('When a KafkaTopic has a wrong type or an unknown field, then its CRD schema refuses it', async () => {
    const topic = resourceOf(checks.manifests, 'KafkaTopic', 'plants.create');
    const stringPartitions = structuredClone(topic);
    (stringPartitions.spec as Record<string, unknown>).partitions = '12';
    const misspelt = structuredClone(topic);
    Object.assign(misspelt.spec, { partitons: 12 });

    const topics = await customResourceCheck('KafkaTopic', [stringPartitions, misspelt]);

    expect(topics.output).toContain("$.spec.partitions: '12' is not of type 'integer'");
    expect(topics.output).toContain("('partitons' was unexpected)");
    expect(topics.exitCode).toBe(1);
  });

  it('When a ScaledObject has a wrong type or misses a required field, then its CRD schema refuses it', async () => {
    const scaler = resourceOf(checks.manifests, 'ScaledObject', 'plant-store-writer');
    const numberThreshold = structuredClone(scaler);
    (numberThreshold.spec.triggers[0].metadata as Record<string, unknown>).lagThreshold = 1000;
    const untargeted = structuredClone(scaler);
    delete untargeted.spec.scaleTargetRef;

    const scalers = await customResourceCheck('ScaledObject', [numberThreshold, untargeted]);

    expect(scalers.output).toContain(
      "$.spec.triggers[0].metadata.lagThreshold: 1000 is not of type 'string'",
    );
    expect(scalers.output).toContain("$.spec: 'scaleTargetRef' is a required property");
    expect(scalers.exitCode).toBe(1);
  });

  it("When a KafkaUser has an unknown field or Kafka's CLI name for a prefix pattern, then its CRD schema refuses it", async () => {
    const user = resourceOf(checks.manifests, 'KafkaUser', 'plant-store-gateway');
    const unknownField = structuredClone(user);
    const [acl] = unknownField.spec.authorization.acls;
    Object.assign(acl ?? {}, { operation: acl?.operations });
    const cliPattern = structuredClone(user);
    Object.assign(cliPattern.spec.authorization.acls[0]?.resource ?? {}, {
      patternType: 'prefixed',
    });

    const users = await customResourceCheck('KafkaUser', [unknownField, cliPattern]);

    expect(users.output).toContain("('operation' was unexpected)");
    expect(users.output).toContain(
      "$.spec.authorization.acls[0].resource.patternType: 'prefixed' is not one of ['literal', 'prefix']",
    );
    expect(users.exitCode).toBe(1);
  });

  it("When a TriggerAuthentication misses a Secret's key, then its CRD schema refuses it", async () => {
    const keyless = structuredClone(
      resourceOf(checks.manifests, 'TriggerAuthentication', 'plant-store-writer-kafka'),
    );
    delete (keyless.spec.secretTargetRef?.[0] as { key?: string } | undefined)?.key;

    const auths = await customResourceCheck('TriggerAuthentication', [keyless]);

    expect(auths.output).toContain("$.spec.secretTargetRef[0]: 'key' is a required property");
    expect(auths.exitCode).toBe(1);
  });

  it("When the KafkaUsers are compared with the grants of the local secured stack, then each principal has exactly its ACLs, allowed from any host, and signs in with SCRAM-SHA-512 on the KafkaTopics' cluster", () => {
    const users = resourcesOf(checks.manifests, 'KafkaUser');

    const acls = users.flatMap(({ metadata, spec }) =>
      spec.authorization.acls.flatMap(({ resource, operations, type = 'allow', host = '*' }) =>
        operations.map((operation) => ({
          principal: metadata.name,
          operation,
          type: resource.type,
          name: resource.name,
          patternType: resource.patternType ?? 'literal',
          allowed: `${type} from ${host}`,
        })),
      ),
    );

    expect(sortedGrants(acls)).toEqual(
      sortedGrants(
        grantsOf((principal) => `plant-store-${principal}`).map((grant) => ({
          ...grant,
          allowed: 'allow from *',
        })),
      ),
    );
    const [cluster] = resourcesOf(checks.manifests, 'KafkaTopic').map(
      (topic) => topic.metadata.labels?.['strimzi.io/cluster'],
    );
    expect(
      users.map(({ metadata, spec }) => [
        metadata.name,
        metadata.labels?.['strimzi.io/cluster'],
        spec.authentication.type,
        spec.authorization.type,
      ]),
    ).toEqual(
      PRINCIPALS.map((principal) => [
        `plant-store-${principal}`,
        cluster,
        'scram-sha-512',
        'simple',
      ]),
    );
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

  it("When the workloads sign in to Kafka, then each names a KafkaUser of its own and reads that user's password and the cluster CA from Strimzi's Secrets, mounted read-only", () => {
    const users = resourcesOf(checks.manifests, 'KafkaUser').map(({ metadata }) => metadata.name);

    const signIns = WORKLOADS.map((name) => {
      const workload = workloadOf(checks.manifests, name);
      const environment = environmentOf(
        checks.manifests,
        workload.spec.template.spec.containers[0],
      );
      const files = secretFilesOf(workload);
      return {
        user: environment.KAFKA_SASL_USERNAME ?? '',
        password: files.get(environment.KAFKA_SASL_PASSWORD_FILE ?? ''),
        ca: files.get(environment.KAFKA_SSL_CA_FILE ?? ''),
        writable: [...files].filter(([, file]) => !file.readOnly).map(([path]) => path),
      };
    });

    expect(users).toEqual(expect.arrayContaining(signIns.map(({ user }) => user)));
    expect(new Set(signIns.map(({ user }) => user)).size).toBe(WORKLOADS.length);
    expect(signIns).toEqual(
      signIns.map(({ user }) => ({
        user,
        password: { secret: user, key: 'password', readOnly: true },
        ca: CLUSTER_CA,
        writable: [],
      })),
    );
  });

  it("When KEDA reads the writers' lag, then it signs in as the writers do: same user, password, CA, TLS and SASL mechanism", () => {
    const [trigger] = resourceOf(checks.manifests, 'ScaledObject', 'plant-store-writer').spec
      .triggers;
    const writer = resourceOf(checks.manifests, 'Deployment', 'plant-store-writer');
    const [container] = writer.spec.template.spec.containers;
    const environment = environmentOf(checks.manifests, container);
    const files = secretFilesOf(writer);

    const { spec } = resourceOf(
      checks.manifests,
      'TriggerAuthentication',
      trigger.authenticationRef?.name ?? '',
    );

    const secretOf = (path = '') => {
      const { secret, key } = files.get(path) ?? {};
      return { secret, key };
    };
    expect(trigger.authenticationRef?.kind ?? 'TriggerAuthentication').toBe(
      'TriggerAuthentication',
    );
    expect({
      ...Object.fromEntries(
        (spec.env ?? []).map(({ parameter, name, containerName }) => [
          parameter,
          { containerName, variable: name },
        ]),
      ),
      ...Object.fromEntries(
        (spec.secretTargetRef ?? []).map(({ parameter, name, key }) => [
          parameter,
          { secret: name, key },
        ]),
      ),
    }).toEqual({
      username: { containerName: container.name, variable: 'KAFKA_SASL_USERNAME' },
      password: secretOf(environment.KAFKA_SASL_PASSWORD_FILE),
      ca: secretOf(environment.KAFKA_SSL_CA_FILE),
    });
    const kedaSasl = {
      plain: 'plaintext',
      'scram-sha-256': 'scram_sha256',
      'scram-sha-512': 'scram_sha512',
    };
    expect({ tls: trigger.metadata.tls, sasl: trigger.metadata.sasl }).toEqual({
      tls: environment.KAFKA_SSL === 'true' ? 'enable' : 'disable',
      sasl: kedaSasl[environment.KAFKA_SASL_MECHANISM as keyof typeof kedaSasl],
    });
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

    const ports = (name: string) => {
      const workload = workloadOf(checks.manifests, name);
      return {
        scraped: Number(workload.spec.template.metadata.annotations['prometheus.io/port']),
        container: workload.spec.template.spec.containers[0].ports[0].containerPort,
      };
    };
    expect(ports('plant-store-gateway')).toEqual({
      scraped: gateway.PORT,
      container: gateway.PORT,
    });
    expect(ports('plant-store-writer')).toEqual({
      scraped: writer.METRICS_PORT,
      container: writer.METRICS_PORT,
    });
  });
});
