import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { runLogged } from '../process/run-logged.ts';
import { cacheRoot } from './paths.ts';
import { provisionOnce } from './provision-cache.ts';
import { findOnPath, GO, MissingToolError } from './tools.ts';

export interface GoTool {
  /** The module as the Go module proxy serves it, and the checksum database's hash of it. */
  module: string;
  version: string;
  sum: string;
  /** The command's package inside the module, e.g. `cmd/promtool`. */
  command: string;
  /** What the tool is needed for, as an error names it. */
  neededFor: string;
  /** The oldest Go that builds it. */
  minimumGo: string;
}

/**
 * A command built once per machine from a pinned Go module, checked against its hash, and kept in
 * the machine's cache; the module and build caches it took are removed after the build.
 */
export async function goTool(tool: GoTool): Promise<string> {
  requireGo(`building ${tool.command} (once, then cached) for ${tool.neededFor}`, tool.minimumGo);
  const binary = tool.command.split('/').at(-1) ?? tool.command;
  const name = `${binary}-${tool.version}`;
  const logFile = join(cacheRoot(), `${name}.install.log`);
  const home = await provisionOnce(cacheRoot(), name, async (dir) => {
    const build = join(dir, 'build');
    const env = {
      ...process.env,
      GOMODCACHE: join(build, 'mod'),
      GOCACHE: join(build, 'cache'),
      GOBIN: join(dir, 'bin'),
      GOFLAGS: '-mod=mod',
      CGO_ENABLED: '0',
    };
    const download = JSON.parse(
      await runLogged('go', ['mod', 'download', '-json', `${tool.module}@${tool.version}`], {
        cwd: dir,
        logFile,
        env,
      }),
    ) as { Sum?: string; Error?: string };
    if (download.Sum !== tool.sum) {
      throw new Error(
        `${tool.module}@${tool.version}: expected ${tool.sum}, got ${download.Sum ?? download.Error ?? 'nothing'}`,
      );
    }
    await runLogged(
      'go',
      [
        ...['install', '-trimpath', '-ldflags=-s -w'],
        `${tool.module}/${tool.command}@${tool.version}`,
      ],
      { cwd: dir, logFile, env },
    );
    await runLogged('go', ['clean', '-modcache'], { cwd: dir, logFile, env });
    await rm(build, { recursive: true, force: true });
  });
  return join(home, 'bin', binary);
}

/** Go, to build a tool once (then cached): no running server or Docker stands in for it. */
export function requireGo(neededFor: string, minimumVersion: string): void {
  if (findOnPath(GO.command) !== null) return;
  const install = `install Go ${minimumVersion} or newer (Debian/Ubuntu: apt-get install golang)`;
  throw new MissingToolError([{ ...GO, neededFor, install }], null);
}
