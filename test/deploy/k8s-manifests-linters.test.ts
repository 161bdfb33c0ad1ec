import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import {
  K8S_DIR,
  kustomizationResources,
  readManifests,
} from '../support/checks/deploy-manifests.ts';
import { goTool } from '#local/provision/go-tool.ts';
import { pinnedVenvPython } from '../support/checks/pinned-venv.ts';
import { runPythonModule } from '../support/processes/python-module.ts';
import { runTool } from '../support/processes/run-tool.ts';

/** Building kube-score and installing checkov, once per machine: a limit on hangs. */
const INSTALL_LIMIT_MS = 1_200_000;
/** The only checks a manifest may waive, each with its reason beside it. */
const WAIVABLE: Record<'kubeScore' | 'checkov', readonly string[]> = {
  kubeScore: ['container-image-pull-policy'],
  checkov: ['CKV_K8S_21'],
};

const kubeScore = () =>
  goTool({
    module: 'github.com/zegl/kube-score',
    version: 'v1.20.0',
    sum: 'h1:J1VqK86SunV4Gg8emPTmwUVxe0rmXnAs5K9ZUbGMKR8=',
    command: 'cmd/kube-score',
    neededFor: 'test/deploy/k8s-manifests-linters.test.ts',
    minimumGo: '1.23',
  });
const checkovPython = () =>
  pinnedVenvPython({
    name: 'checkov',
    requirements: join(projectRoot, 'test', 'support', 'checks', 'checkov', 'requirements.txt'),
    neededFor: 'checkov for test/deploy/k8s-manifests-linters.test.ts',
  });

interface Waiver {
  tool: keyof typeof WAIVABLE;
  check: string;
  reason?: string;
}
interface CheckovReport {
  check_type: string;
  summary: { passed: number; failed: number; skipped: number };
  results: { failed_checks: { check_id: string; file_path: string }[] };
}

describe('deploy/k8s against the linters of the field', () => {
  let binary: string;
  let python: string;
  let scratch: string;
  beforeAll(async () => {
    [binary, python] = await Promise.all([kubeScore(), checkovPython()]);
    scratch = await mkdtemp(join(tmpdir(), 'plant-store-linters-'));
  }, INSTALL_LIMIT_MS);
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  const manifests = async () => (await kustomizationResources()).map((file) => join(K8S_DIR, file));
  const scoreOf = (files: string[]) => {
    const run = runTool(binary, ['score', '--output-format', 'ci', ...files]);
    const lines = run.output.split('\n');
    return { ...run, critical: lines.filter((line) => line.startsWith('[CRITICAL]')) };
  };
  /** checkov's JSON report of `directory`, one per framework, and its exit code. */
  const checkov = async (directory: string) => {
    const out = await mkdtemp(join(scratch, 'checkov-'));
    const run = await runPythonModule(
      python,
      'checkov.main',
      [
        ...['--directory', directory, '--framework', 'kubernetes', 'secrets'],
        ...['--output', 'json', '--output-file-path', out, '--skip-download', '--quiet'],
      ],
      { cwd: projectRoot },
    );
    const parsed = JSON.parse(await readFile(join(out, 'results_json.json'), 'utf8')) as
      CheckovReport | CheckovReport[];
    return { reports: Array.isArray(parsed) ? parsed : [parsed], exitCode: run.exitCode };
  };
  const failedChecks = (reports: CheckovReport[]) =>
    reports.flatMap(({ results }) => results.failed_checks.map(({ check_id }) => check_id));
  /** The waivers in the manifests' annotations: the tool, the check, and checkov's reason. */
  const waivers = async (): Promise<Waiver[]> =>
    (await readManifests())
      .flatMap(({ resources }) => resources)
      .flatMap(({ metadata }) => Object.entries(metadata.annotations ?? {}))
      .flatMap(([key, value]): Waiver[] => {
        if (key === 'kube-score/ignore')
          return value.split(',').map((check) => ({ tool: 'kubeScore', check }));
        if (!key.startsWith('checkov.io/skip')) return [];
        const [check = '', reason = ''] = value.split('=');
        return [{ tool: 'checkov', check, reason }];
      });

  it('When kube-score scores every manifest, then it finds nothing critical', async () => {
    const { critical, status } = scoreOf(await manifests());

    expect(critical).toEqual([]);
    expect(status).toBe(0);
  });

  it('When the NetworkPolicies are left out, then kube-score calls both workloads critical', async () => {
    const files = (await manifests()).filter((file) => !file.endsWith('network-policies.yaml'));

    const { critical, status } = scoreOf(files);

    expect(
      critical.filter((line) => line.includes('does not have a matching NetworkPolicy')),
    ).toHaveLength(2);
    expect(status).not.toBe(0);
  });

  it('When checkov checks the directory, then no check fails, and a manifest skips only the namespace check, saying why', async () => {
    const { reports, exitCode } = await checkov(K8S_DIR);
    const kubernetes = reports.find(({ check_type }) => check_type === 'kubernetes');
    const waived = await waivers();

    expect(failedChecks(reports)).toEqual([]);
    expect(kubernetes?.summary.passed).toBeGreaterThan(100);
    expect(kubernetes?.summary.skipped).toBe(
      waived.filter(({ tool }) => tool === 'checkov').length,
    );
    expect(exitCode).toBe(0);
    expect(waived.filter(({ tool, check }) => !WAIVABLE[tool].includes(check))).toEqual([]);
    expect(
      waived.filter(({ tool, reason }) => tool === 'checkov' && (reason ?? '').length < 20),
    ).toEqual([]);
  });

  it('When a container pulls its image by tag and runs as root, then checkov fails it', async () => {
    const dir = join(scratch, 'by-tag');
    await mkdir(dir);
    const writer = await readFile(join(projectRoot, K8S_DIR, 'writer.yaml'), 'utf8');
    await writeFile(
      join(dir, 'writer.yaml'),
      writer
        .replace(/image: plant-store@sha256:[0-9a-f]+/, 'image: plant-store:latest')
        .replace('runAsUser: 10001', 'runAsUser: 0'),
    );

    const { reports, exitCode } = await checkov(dir);

    expect(failedChecks(reports)).toEqual(expect.arrayContaining(['CKV_K8S_43', 'CKV_K8S_40']));
    expect(exitCode).toBe(1);
  });
});
