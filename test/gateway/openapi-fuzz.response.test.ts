import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { attachGateway, TOKEN } from '../support/servers/gateway.ts';
import { runSchemathesis, schemathesisPython } from '../support/checks/schemathesis.ts';
import { startTestWriter } from '../support/servers/writer.ts';

const FUZZ_DIR = join(projectRoot, 'test', 'support', 'checks', 'schemathesis');
const MAX_EXAMPLES = 500;

/** The parts of schemathesis's JSON run report this test reads. */
interface RunReport {
  complete: boolean;
  operations: { tested: number };
  phases: Record<string, { status: string }>;
  test_cases: { generated: number };
  valid_rates: Record<string, Record<string, { accepted: number }>>;
}

describe('POST /plants fuzzed by schemathesis from the served OpenAPI document', () => {
  let python: string;
  beforeAll(async () => {
    python = await schemathesisPython();
  });

  // A limit on hangs: MAX_EXAMPLES requests one after the other take ~10 s on idle cores and
  // 135 s on two loaded ones, so the limit is four times that.
  it('When schemathesis sends generated valid and invalid requests, then every answer conforms to the document', async () => {
    const harness = await startTestWriter();
    // Short, so that a writer that stopped answering fails the first case instead of every one.
    const { gateway } = await attachGateway(harness, { replyTimeoutMs: 3_000 });
    await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = gateway.app.server.address() as AddressInfo;
    const workDir = await mkdtemp(join(tmpdir(), 'plant-store-fuzz-'));
    onTestFinished(() => rm(workDir, { recursive: true, force: true }));
    const reportFile = join(workDir, 'report.json');

    const run = await runSchemathesis(
      python,
      [
        ...['--config-file', join(FUZZ_DIR, 'schemathesis.toml')],
        'run',
        `http://127.0.0.1:${String(port)}/openapi.json`,
        ...['--header', `Authorization: Bearer ${TOKEN}`],
        ...['--checks', 'all'],
        ...['--mode', 'all'],
        '--generation-deterministic',
        ...['--max-examples', String(MAX_EXAMPLES)],
        ...['--workers', '1'],
        ...['--request-timeout', '10'],
        ...['--report', 'json', '--report-json-path', reportFile],
        '--no-color',
      ],
      { cwd: workDir, env: { SCHEMATHESIS_HOOKS: join(FUZZ_DIR, 'hooks.py') } },
    );

    expect(run.exitCode, run.output).toBe(0);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as RunReport;
    expect(
      {
        complete: report.complete,
        tested: report.operations.tested,
        coverage: report.phases.coverage?.status,
        fuzzing: report.phases.fuzzing?.status,
      },
      run.output,
    ).toEqual({ complete: true, tested: 1, coverage: 'success', fuzzing: 'success' });
    expect(report.test_cases.generated, run.output).toBeGreaterThanOrEqual(MAX_EXAMPLES);
    expect(
      report.valid_rates['POST /plants']?.fuzzing?.accepted,
      `too few plants created:\n${run.output}`,
    ).toBeGreaterThanOrEqual(MAX_EXAMPLES / 5);
  }, 600_000);
});
