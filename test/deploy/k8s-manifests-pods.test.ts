import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import {
  resourceOf,
  resourcesOf,
  workloadOf,
  workloadsOf,
} from '../support/checks/deploy-manifests.ts';
import { manifestChecks, WORKLOADS } from '../support/checks/manifest-checks.ts';

const checks = manifestChecks();

const BINARY_UNITS = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
/** A Kubernetes quantity of bytes in the binary units the manifests use. */
function bytesOf(quantity: string | undefined): number {
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity ?? '');
  if (match === null) throw new Error(`not a quantity in Ki, Mi or Gi: ${String(quantity)}`);
  return Number(match[1]) * BINARY_UNITS[match[2] as keyof typeof BINARY_UNITS];
}
/** What the kubelet keeps of a container's log by default: 5 files of 10 MiB. */
const ROTATED_LOG_BYTES = 5 * 10 * 2 ** 20;

describe('deploy/k8s pods', () => {
  it("When the pods start, then they run as the image's user and group, both numbers of 10000 or more, which no host user has", async () => {
    const dockerfile = await readFile(join(projectRoot, 'Dockerfile'), 'utf8');
    const [user, group] = (/^USER (\d+):(\d+)$/m.exec(dockerfile) ?? []).slice(1).map(Number);

    expect(user).toBeGreaterThanOrEqual(10_000);
    expect(group).toBeGreaterThanOrEqual(10_000);
    for (const name of WORKLOADS) {
      expect(workloadOf(checks.manifests, name).spec.template.spec.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: user,
        runAsGroup: group,
      });
    }
  });

  it('When a pod writes to its node, then it requests ephemeral storage and is limited to what its /tmp and its rotated log can hold', () => {
    for (const name of WORKLOADS) {
      const { containers, volumes = [] } = workloadOf(checks.manifests, name).spec.template.spec;
      const scratch = volumes
        .filter((volume) => volume.emptyDir !== undefined)
        .map((volume) => bytesOf(volume.emptyDir?.sizeLimit))
        .reduce((sum, bytes) => sum + bytes, 0);
      const { requests, limits } = containers[0].resources ?? {};
      const requested = bytesOf(requests?.['ephemeral-storage']);
      const limited = bytesOf(limits?.['ephemeral-storage']);

      expect(scratch, name).toBeGreaterThan(0);
      expect(requested, name).toBeGreaterThan(0);
      expect(limited, name).toBeGreaterThanOrEqual(scratch + ROTATED_LOG_BYTES);
      expect(limited, name).toBeGreaterThanOrEqual(requested);
    }
  });

  it("When the gateways' StatefulSet is read, then its serviceName names a headless Service of its pods, not the Service clients reach them by", () => {
    const gateway = workloadOf(checks.manifests, 'plant-store-gateway');
    const podLabels = gateway.spec.template.metadata.labels;
    const governing = resourceOf(checks.manifests, 'Service', gateway.spec.serviceName ?? '');
    const balanced = resourcesOf(checks.manifests, 'Service').filter(
      (service) => service.spec.clusterIP !== 'None',
    );

    expect(governing.spec.clusterIP).toBe('None');
    expect(podLabels).toMatchObject(governing.spec.selector);
    expect(balanced.map((service) => service.metadata.name)).toEqual(['plant-store-gateway']);
    expect(workloadsOf(checks.manifests).filter(({ kind }) => kind === 'StatefulSet')).toHaveLength(
      1,
    );
  });

  it('When the KafkaUsers are read, then each is held to byte rates, and the principals of other services and of the DLQ tool to a tenth of the services’ and a share of the request threads', () => {
    const users = resourcesOf(checks.manifests, 'KafkaUser');
    const services = users.filter(
      ({ metadata }) => metadata.labels?.['app.kubernetes.io/component'],
    );
    const others = users.filter((user) => !services.includes(user));
    const servicesLeast = Math.min(
      ...services.flatMap(({ spec }) => [
        spec.quotas?.producerByteRate ?? Infinity,
        spec.quotas?.consumerByteRate ?? Infinity,
      ]),
    );

    expect(services.map(({ metadata }) => metadata.name).toSorted()).toEqual(WORKLOADS.toSorted());
    expect(others.length).toBeGreaterThan(0);
    for (const { metadata, spec } of users) {
      expect(spec.quotas?.producerByteRate, metadata.name).toBeGreaterThan(0);
      expect(spec.quotas?.consumerByteRate, metadata.name).toBeGreaterThan(0);
    }
    for (const { metadata, spec } of others) {
      expect(spec.quotas?.producerByteRate, metadata.name).toBeLessThanOrEqual(servicesLeast / 10);
      expect(spec.quotas?.consumerByteRate, metadata.name).toBeLessThanOrEqual(servicesLeast / 10);
      expect(spec.quotas?.requestPercentage, metadata.name).toBeGreaterThan(0);
      expect(spec.quotas?.requestPercentage, metadata.name).toBeLessThanOrEqual(100);
    }
  });
});
