import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { GRANTS } from '#local/kafka/acls.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { readManifests, type ManifestFile } from './deploy-manifests.ts';
import { deployValidators, runValidator, type DeployValidators } from './deploy-validators.ts';

/** The oldest Kubernetes the manifests claim (PDB `unhealthyPodEvictionPolicy` is GA) and the newest bundled. */
export const KUBERNETES_VERSIONS = ['1.31.0', '1.37.0'];

export interface ManifestChecks {
  validators: DeployValidators;
  /** A directory of the test file's own for changed copies, removed after it. */
  scratch: string;
  manifests: ManifestFile[];
  /** A stand-in for the CA certificates that Strimzi and the compose one-shot make. */
  caPem: string;
}

/**
 * The validators, the manifests and a scratch directory for one test file, ready in its
 * `beforeAll`: read the fields inside tests only.
 */
export function manifestChecks(): ManifestChecks {
  const checks = {} as ManifestChecks;
  beforeAll(async () => {
    checks.validators = await deployValidators();
    checks.scratch = await mkdtemp(join(tmpdir(), 'plant-store-manifests-'));
    checks.manifests = await readManifests();
    checks.caPem = await readFile(
      join(projectRoot, 'test', 'fixtures', 'unit-test-ca.pem'),
      'utf8',
    );
  });
  afterAll(() => rm(checks.scratch, { recursive: true, force: true }));
  return checks;
}

/** Writes a changed copy of a document for a validator to refuse; JSON is YAML too. */
export async function scratchFile(
  checks: ManifestChecks,
  name: string,
  document: unknown,
): Promise<string> {
  const file = join(checks.scratch, name);
  await writeFile(file, JSON.stringify(document, null, 2));
  return file;
}

export const checkJsonSchema = (checks: ManifestChecks, args: string[]) =>
  runValidator(checks.validators.python, 'check_jsonschema', args);

export const kubernetesValidate = (
  checks: ManifestChecks,
  files: string[],
  versions = KUBERNETES_VERSIONS,
) =>
  runValidator(checks.validators.python, 'kubernetes_validate', [
    '--strict',
    ...versions.flatMap((version) => ['-k', version]),
    ...files,
  ]);

/** GRANTS one entry per operation, with Strimzi's names for operations and pattern types. */
export function grantsOf(userOf: (principal: string) => string) {
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

export function sortedGrants<Grant>(grants: Grant[]): Grant[] {
  return grants.toSorted((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** The Deployment and StatefulSet of deploy/k8s, by name. */
export const WORKLOADS = ['plant-store-gateway', 'plant-store-writer'];
/** Where the workloads read the cluster CA that Strimzi's operator makes. */
export const CLUSTER_CA = { secret: 'plant-store-cluster-ca-cert', key: 'ca.crt', readOnly: true };
