import { describe, expect, it } from 'vitest';
import { PRINCIPALS } from '#local/kafka/acls.ts';
import {
  environmentOf,
  resourceOf,
  resourcesOf,
  secretFilesOf,
  workloadOf,
} from '../support/checks/deploy-manifests.ts';
import {
  manifestChecks,
  grantsOf,
  sortedGrants,
  WORKLOADS,
  CLUSTER_CA,
} from '../support/checks/manifest-checks.ts';

const checks = manifestChecks();

describe('deploy/k8s', () => {
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
});
