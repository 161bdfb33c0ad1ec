import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { customResourceSchema } from '../support/checks/crd-schema.ts';
import {
  K8S_DIR,
  kustomizationResources,
  resourceOf,
  resourcesOf,
  workloadOf,
  type Resource,
} from '../support/checks/deploy-manifests.ts';
import type { CustomKind } from '../support/checks/deploy-validators.ts';
import {
  manifestChecks,
  scratchFile,
  checkJsonSchema,
  kubernetesValidate,
  KUBERNETES_VERSIONS,
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
});
