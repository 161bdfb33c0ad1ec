import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import nodeOptions from '../../scripts/node-options.json' with { type: 'json' };
import { GATEWAY_MAIN, WRITER_MAIN } from '#local/process/node-service.ts';
import { projectRoot } from '#local/provision/paths.ts';
import {
  readComposeFile,
  readManifests,
  workloadOf,
  serviceOf,
} from '../support/checks/deploy-manifests.ts';
import { TOKEN } from '../support/servers/gateway.ts';
import {
  assembleImage,
  startInImage,
  type AssembledImage,
} from '../support/checks/image-rehearsal.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { startOtlpReceiver } from '../support/servers/otlp-receiver.ts';
import { serviceProcesses, writerHealthUrl } from '../support/servers/services.ts';
import { startTestWriter } from '../support/servers/writer.ts';

interface LockedPackage {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
}

let scratch: string;
let image: AssembledImage;
let app: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'plant-store-image-'));
  image = await assembleImage(scratch, join(inject('serverLogDir') ?? scratch, 'image-build.log'));
  app = join(image.root, image.workdir);
}, 180_000);
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** The packages npm installs at the top of node_modules, by path, from the lockfile. */
function lockedPackages(): [string, LockedPackage][] {
  const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockedPackage>;
  };
  return Object.entries(lock.packages).filter(([path]) =>
    /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path),
  );
}

/** The real user id a process runs as. */
function uidOf(pid: number): number {
  const line = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  return Number(line?.[1]);
}

describe('The image, assembled from the Dockerfile without a container engine', () => {
  it('When the Dockerfile is carried out, then it is the pinned Node for a numeric non-root user, holding the services, the shared code and the production dependencies of the lockfile, and no development one', () => {
    const packages = lockedPackages();
    const development = packages.filter(([, locked]) => locked.dev === true);
    const production = packages.filter(
      ([, locked]) =>
        locked.dev !== true && locked.optional !== true && locked.devOptional !== true,
    );

    expect(image.base).toMatch(
      new RegExp(`^node:${process.versions.node.replaceAll('.', '\\.')}-`),
    );
    expect(image.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(readdirSync(app).toSorted()).toEqual([
      'node_modules',
      'package.json',
      'services',
      'shared',
    ]);
    expect(production.length).toBeGreaterThan(0);
    expect(production.filter(([path]) => !existsSync(join(app, path)))).toEqual([]);
    expect(development.map(([path]) => path).filter((path) => existsSync(join(app, path)))).toEqual(
      [],
    );
  });

  it('When a service starts from the image, then its NODE_OPTIONS are those the npm scripts give it, from scripts/node-options.json', () => {
    expect(image.env.NODE_OPTIONS?.split(' ')).toEqual([
      ...nodeOptions.everyScript,
      ...nodeOptions.services,
    ]);
  });

  it('When the gateway runs the image’s command and the writer its Deployment’s, as the image’s user with only the image’s environment, then a create is answered 200, both documents are served, and both services export their spans', async () => {
    const compose = await readComposeFile();
    const manifests = await readManifests();
    const k8sCommand = (name: string) =>
      workloadOf(manifests, name).spec.template.spec.containers[0].command;
    expect(image.cmd).toEqual(['node', GATEWAY_MAIN]);
    expect([k8sCommand('plant-store-gateway'), serviceOf(compose, 'gateway').command]).toEqual([
      image.cmd,
      image.cmd,
    ]);
    const writerCommand = k8sCommand('plant-store-writer') ?? [];
    expect(writerCommand).toEqual(['node', WRITER_MAIN]);
    expect(serviceOf(compose, 'writer').command).toEqual(writerCommand);

    const receiver = await startOtlpReceiver();
    const harness = await startTestWriter({ writer: false });
    const commands: Record<string, readonly string[]> = {
      [GATEWAY_MAIN]: image.cmd,
      [WRITER_MAIN]: writerCommand,
    };
    const services = serviceProcesses(harness, (options) =>
      startInImage(image, commands[options.script] ?? [], options),
    );
    // The image listens on every interface; a test listens on loopback only.
    const env = { HOST: '127.0.0.1', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint };
    const writer = await services.startWriter('image-writer', env);
    const { process: gateway, url } = await services.startGateway('image-gateway', env);

    const created = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"id": 9007199254740993, "name": "Pilea", "tag": "urticaceae"}',
    });
    const documents = await Promise.all(
      ['/openapi.json', '/asyncapi.json'].map(async (path) => (await fetch(url + path)).status),
    );
    // The writer counts a reply once its send is acknowledged, which may be after it arrived.
    await expect
      .poll(async () => {
        const scrape = await fetch(`${writerHealthUrl(writer)}/metrics`);
        return metric(parseMetrics(await scrape.text()), 'plant_store_writer_commands_total', {
          outcome: '200',
        });
      })
      .toBe(1);
    const users = [gateway.pid, writer.pid].map(uidOf);
    // SIGTERM: each exports the spans it still holds before exiting.
    await Promise.all([gateway.stop(), writer.stop()]);

    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({ name: 'Pilea', tag: 'urticaceae' });
    expect(documents).toEqual([200, 200]);
    expect(new Set(receiver.spans.map((span) => span.service))).toEqual(
      new Set(['plant-store-gateway', 'plant-store-writer']),
    );
    // Only root can switch users; as anyone else the services run as that user.
    const expectedUser =
      process.getuid?.() === 0 ? Number(image.user?.split(':')[0]) : process.getuid?.();
    expect(users).toEqual([expectedUser, expectedUser]);
  });
});
