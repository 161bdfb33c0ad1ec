import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { projectRoot } from '../../deploy/local/paths.ts';

export const COMPOSE_FILE = 'docker-compose.yml';
export const K8S_DIR = join('deploy', 'k8s');

/** The parts of docker-compose.yml the tests read. */
export interface ComposeService {
  command?: string[];
  container_name?: string;
  ports?: unknown[];
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string | number>;
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export function serviceOf(compose: ComposeFile, name: string): ComposeService {
  const service = compose.services[name];
  if (service === undefined) throw new Error(`No service ${name} in ${COMPOSE_FILE}`);
  return service;
}

/** docker-compose.yml as Compose reads it: YAML merge keys (`<<: *anchor`) applied. */
export async function readComposeFile(): Promise<ComposeFile> {
  return parse(await readFile(join(projectRoot, COMPOSE_FILE), 'utf8'), {
    merge: true,
  }) as ComposeFile;
}

/** Compose's `${NAME:-default}` and `${NAME:?message}`, as `docker compose up` would resolve them. */
export function interpolate(value: string | number, env: Record<string, string>): string {
  return String(value).replace(
    /\$\{(\w+)(?::([-?])([^}]*))?\}/g,
    (_match, name: string, operator?: string, operand?: string) => {
      const given = env[name];
      if (given !== undefined && given !== '') return given;
      if (operator === '-') return operand ?? '';
      throw new Error(`${name} is not set: ${operand ?? ''}`);
    },
  );
}

/** The parts of the Kubernetes resources the tests read. */
export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}
export interface ConfigMap extends Resource {
  data: Record<string, string>;
}
export interface Secret extends Resource {
  stringData: Record<string, string>;
}
export interface Container {
  name?: string;
  command?: string[];
  ports: [{ name: string; containerPort: number }];
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
}
export interface Deployment extends Resource {
  spec: {
    template: {
      metadata: { annotations: Record<string, string> };
      spec: { containers: [Container] };
    };
  };
}
export interface KafkaTopic extends Resource {
  spec: { partitions: number };
}
export interface ScaledObject extends Resource {
  spec: {
    scaleTargetRef?: { name: string };
    maxReplicaCount: number;
    triggers: [{ type: string; metadata: Record<string, string> }];
  };
}
interface Kinds {
  ConfigMap: ConfigMap;
  Secret: Secret;
  Deployment: Deployment;
  KafkaTopic: KafkaTopic;
  ScaledObject: ScaledObject;
}

export interface ManifestFile {
  /** Relative to the project root, as the validators print it. */
  file: string;
  resources: Resource[];
}

/** The files kustomization.yaml applies, in its order. */
export async function kustomizationResources(): Promise<string[]> {
  const kustomization = parse(
    await readFile(join(projectRoot, K8S_DIR, 'kustomization.yaml'), 'utf8'),
  ) as { resources: string[] };
  return kustomization.resources;
}

export async function readManifests(): Promise<ManifestFile[]> {
  return Promise.all(
    (await kustomizationResources()).map(async (name) => {
      const file = join(K8S_DIR, name);
      const text = await readFile(join(projectRoot, file), 'utf8');
      return { file, resources: parseAllDocuments(text).map((doc) => doc.toJS() as Resource) };
    }),
  );
}

export function resourcesOf<Kind extends keyof Kinds>(
  manifests: readonly ManifestFile[],
  kind: Kind,
): Kinds[Kind][] {
  return manifests.flatMap(({ resources }) =>
    resources.filter((resource): resource is Kinds[Kind] => resource.kind === kind),
  );
}

export function resourceOf<Kind extends keyof Kinds>(
  manifests: readonly ManifestFile[],
  kind: Kind,
  name: string,
): Kinds[Kind] {
  const found = resourcesOf(manifests, kind).find((resource) => resource.metadata.name === name);
  if (found === undefined) throw new Error(`No ${kind} ${name} in ${K8S_DIR}`);
  return found;
}

/** What a container's environment holds from the ConfigMaps and Secrets it names. */
export function environmentOf(
  manifests: readonly ManifestFile[],
  container: Container,
): Record<string, string> {
  return Object.assign(
    {},
    ...container.envFrom.map(({ configMapRef, secretRef }) => {
      if (configMapRef !== undefined)
        return resourceOf(manifests, 'ConfigMap', configMapRef.name).data;
      if (secretRef !== undefined)
        return resourceOf(manifests, 'Secret', secretRef.name).stringData;
      return {};
    }),
  ) as Record<string, string>;
}
