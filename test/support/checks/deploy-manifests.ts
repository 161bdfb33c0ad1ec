import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { projectRoot } from '#local/provision/paths.ts';

export const COMPOSE_FILE = 'docker-compose.yml';
export const K8S_DIR = join('deploy', 'k8s');

/** The parts of docker-compose.yml the tests read. */
export interface ComposeService {
  command?: string[];
  container_name?: string;
  ports?: unknown[];
  restart?: string;
  profiles?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string | number>;
  /** Short syntax only: each is mounted at /run/secrets/<name>. */
  secrets?: string[];
  /** Short syntax only: `<volume>:<path>[:ro]`. */
  volumes?: string[];
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
  secrets?: Record<string, { environment?: string; file?: string }>;
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

/**
 * Compose's `${NAME}`, `$NAME`, `${NAME:-default}` and `${NAME:?message}` as `docker compose up`
 * resolves them, except that a variable without a default must be set (Compose would only warn
 * and leave it blank); `$$` is a dollar sign.
 */
export function interpolate(value: string | number, env: Record<string, string>): string {
  return String(value).replace(
    /\$\$|\$\{(\w+)(?::([-?])([^}]*))?\}|\$([A-Za-z_]\w*)/g,
    (_match, braced?: string, operator?: string, operand?: string, bare?: string) => {
      const name = braced ?? bare;
      if (name === undefined) return '$';
      const given = env[name];
      if (given !== undefined && given !== '') return given;
      if (operator === '-') return operand ?? '';
      throw new Error(`${name} is not set: ${operand ?? ''}`);
    },
  );
}

/** A service's environment as Compose gives it, with `env` as the shell's variables. */
export function composeEnvironment(
  service: ComposeService,
  env: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([key, value]) => [key, interpolate(value, env)]),
  );
}

/**
 * The files a service's container sees besides its image, by path: each of its secrets at
 * /run/secrets/<name>, holding the variable the secret names in `env` (Compose refuses to start
 * the service when it is unset), and the files `volumes` holds (by volume, then path inside it)
 * where the service mounts those volumes.
 */
export function composeFiles(
  compose: ComposeFile,
  name: string,
  env: Record<string, string>,
  volumes: Record<string, Record<string, string>>,
): Record<string, string> {
  const service = serviceOf(compose, name);
  const files: Record<string, string> = {};
  for (const secret of service.secrets ?? []) {
    const variable = compose.secrets?.[secret]?.environment;
    const value = variable === undefined ? undefined : env[variable];
    if (value === undefined) throw new Error(`${name}: secret ${secret} has no variable set`);
    files[`/run/secrets/${secret}`] = value;
  }
  for (const volume of service.volumes ?? []) {
    const [source = '', target = ''] = volume.split(':');
    for (const [path, content] of Object.entries(volumes[source] ?? {}))
      files[posix.join(target, path)] = content;
  }
  return files;
}

/** The parts of the Kubernetes resources the tests read. */
export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
}
interface ConfigMap extends Resource {
  data: Record<string, string>;
}
interface Secret extends Resource {
  stringData: Record<string, string>;
}
interface KeyRef {
  name: string;
  key: string;
  optional?: boolean;
}
export interface Container {
  name?: string;
  command?: string[];
  ports: { name: string; containerPort: number }[];
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: {
      configMapKeyRef?: KeyRef;
      secretKeyRef?: KeyRef;
      fieldRef?: { fieldPath: string };
    };
  }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface Volume {
  name: string;
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  emptyDir?: { sizeLimit?: string };
}
/** A Deployment or a StatefulSet: the pods they run are all the tests read of either. */
export interface Workload extends Resource {
  kind: 'Deployment' | 'StatefulSet';
  spec: {
    podManagementPolicy?: string;
    serviceName?: string;
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: {
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; runAsGroup?: number };
        containers: [Container];
        volumes?: Volume[];
      };
    };
  };
}
interface Service extends Resource {
  spec: { clusterIP?: string; selector: Record<string, string> };
}
interface KafkaTopic extends Resource {
  spec: { partitions: number };
}
interface HorizontalPodAutoscaler extends Resource {
  spec: { scaleTargetRef: { kind: string; name: string }; maxReplicas: number };
}
interface KafkaUserAcl {
  resource: { type: string; name: string; patternType?: string };
  operations: string[];
  type?: string;
  host?: string;
}
interface KafkaUser extends Resource {
  spec: {
    authentication: { type: string };
    authorization: { type: string; acls: KafkaUserAcl[] };
    quotas?: Record<string, number>;
  };
}
interface ScaledObject extends Resource {
  spec: {
    scaleTargetRef?: { name: string };
    maxReplicaCount: number;
    triggers: [
      {
        type: string;
        metadata: Record<string, string>;
        authenticationRef?: { name: string; kind?: string };
      },
    ];
  };
}
interface TriggerAuthentication extends Resource {
  spec: {
    env?: { parameter: string; name: string; containerName?: string }[];
    secretTargetRef?: { parameter: string; name: string; key: string }[];
  };
}
export interface RuleGroup {
  name: string;
  rules: ({ record: string } | { alert: string; annotations?: Record<string, string> })[];
}
interface PodMonitor extends Resource {
  spec: {
    selector: { matchLabels: Record<string, string> };
    podMetricsEndpoints: { port: string; path: string }[];
  };
}
export interface PrometheusRule extends Resource {
  spec: { groups: RuleGroup[] };
}
interface Kinds {
  ConfigMap: ConfigMap;
  Secret: Secret;
  Service: Service;
  Deployment: Workload;
  StatefulSet: Workload;
  KafkaTopic: KafkaTopic;
  HorizontalPodAutoscaler: HorizontalPodAutoscaler;
  KafkaUser: KafkaUser;
  ScaledObject: ScaledObject;
  TriggerAuthentication: TriggerAuthentication;
  PrometheusRule: PrometheusRule;
  PodMonitor: PodMonitor;
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

export function workloadsOf(manifests: readonly ManifestFile[]): Workload[] {
  return [...resourcesOf(manifests, 'Deployment'), ...resourcesOf(manifests, 'StatefulSet')];
}

export function workloadOf(manifests: readonly ManifestFile[], name: string): Workload {
  const found = workloadsOf(manifests).find((workload) => workload.metadata.name === name);
  if (found === undefined) throw new Error(`No Deployment or StatefulSet ${name} in ${K8S_DIR}`);
  return found;
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

/** A StatefulSet's pod `index` as its containers read it (`fieldRef`), by path. */
export function podFieldsOf(index: number): Record<string, string> {
  return { "metadata.labels['apps.kubernetes.io/pod-index']": String(index) };
}

/**
 * What a container's environment holds: the ConfigMaps and Secrets it names in `envFrom`, then
 * its `env`, which wins. A key an optional reference does not find leaves its variable unset.
 */
export function environmentOf(
  manifests: readonly ManifestFile[],
  container: Container,
  podFields: Record<string, string> = podFieldsOf(0),
): Record<string, string> {
  const environment = Object.assign(
    {},
    ...container.envFrom.map(({ configMapRef, secretRef }) => {
      if (configMapRef !== undefined)
        return resourceOf(manifests, 'ConfigMap', configMapRef.name).data;
      if (secretRef !== undefined)
        return resourceOf(manifests, 'Secret', secretRef.name).stringData;
      return {};
    }),
  ) as Record<string, string>;
  for (const { name, value, valueFrom } of container.env ?? []) {
    const { configMapKeyRef, secretKeyRef, fieldRef } = valueFrom ?? {};
    const found =
      value ??
      (fieldRef === undefined ? undefined : podFields[fieldRef.fieldPath]) ??
      (configMapKeyRef === undefined
        ? undefined
        : resourceOf(manifests, 'ConfigMap', configMapKeyRef.name).data[configMapKeyRef.key]) ??
      (secretKeyRef === undefined
        ? undefined
        : resourceOf(manifests, 'Secret', secretKeyRef.name).stringData[secretKeyRef.key]);
    const optional = configMapKeyRef?.optional === true || secretKeyRef?.optional === true;
    if (found !== undefined) environment[name] = found;
    else if (!optional) throw new Error(`${container.name ?? '?'}: ${name} has no value`);
  }
  return environment;
}

/** A key of a Secret, as a file in a pod. */
export interface SecretFile {
  secret: string;
  key: string;
  readOnly: boolean;
}

/**
 * The files a workload's container sees from Secrets, by path. Each Secret volume must list its
 * items: the kubelet then refuses to start the pod when one of those keys is missing.
 */
export function secretFilesOf(workload: Workload): Map<string, SecretFile> {
  const { containers, volumes = [] } = workload.spec.template.spec;
  const files = new Map<string, SecretFile>();
  for (const mount of containers[0].volumeMounts ?? []) {
    const secret = volumes.find((volume) => volume.name === mount.name)?.secret;
    if (secret === undefined) continue;
    if (secret.items === undefined)
      throw new Error(`${workload.metadata.name}: volume ${mount.name} lists no items`);
    for (const { key, path } of secret.items) {
      files.set(posix.join(mount.mountPath, path), {
        secret: secret.secretName,
        key,
        readOnly: mount.readOnly === true,
      });
    }
  }
  return files;
}

/** Secrets that others make (Strimzi's), by name, then key. */
export type SecretData = Record<string, Record<string, string>>;

/**
 * The environment a workload's first pod's container starts with, each Secret it mounts written out as the
 * pod would see it, from deploy/k8s or `made` (see `withFiles`).
 */
export async function podEnvironment(
  manifests: readonly ManifestFile[],
  name: string,
  made: SecretData,
  dir: string,
): Promise<Record<string, string>> {
  const workload = workloadOf(manifests, name);
  const files = [...secretFilesOf(workload)].map(([path, { secret, key }]) => {
    const data =
      made[secret] ??
      resourcesOf(manifests, 'Secret').find((each) => each.metadata.name === secret)?.stringData;
    const content = data?.[key];
    if (content === undefined) throw new Error(`${name}: no key ${key} in Secret ${secret}`);
    return [path, content] as const;
  });
  const environment = environmentOf(manifests, workload.spec.template.spec.containers[0]);
  return withFiles(environment, Object.fromEntries(files), join(dir, name));
}

/**
 * `environment` with every `*_FILE` variable (a `<NAME>_FILE` or a certificate's path) naming a
 * copy under `dir` of the file the container sees at that path, from `files`; a path no mount
 * provides is an error, as it would be when the service starts.
 */
export async function withFiles(
  environment: Record<string, string>,
  files: Record<string, string>,
  dir: string,
): Promise<Record<string, string>> {
  const result = { ...environment };
  for (const [name, path] of Object.entries(environment)) {
    if (!name.endsWith('_FILE')) continue;
    const content = files[path];
    if (content === undefined) throw new Error(`${name}: nothing is mounted at ${path}`);
    const copy = join(dir, path);
    await mkdir(dirname(copy), { recursive: true });
    await writeFile(copy, content);
    result[name] = copy;
  }
  return result;
}
