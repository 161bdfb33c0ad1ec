import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  killOrphans,
  recordServer,
  registryDir,
  stopOrphanedServers,
} from '#local/process/orphans.ts';
import {
  isRunning,
  processIdentity,
  type ProcessIdentity,
} from '#local/process/process-identity.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { watchOutput } from '#test/support/processes/child-output.ts';
import { temporaryDirectory } from '#test/support/servers/local-servers.ts';

const fixture = join(projectRoot, 'test', 'fixtures', 'launcher-fixture.ts');

/** A running process standing in for a server, killed at the end of the test. */
function startSleeper(): ProcessIdentity {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const identity = processIdentity(child.pid ?? 0);
  if (identity === null) throw new Error('sleep did not start');
  return identity;
}

/** The identity a process had: it has exited since. */
async function exitedProcess(): Promise<ProcessIdentity> {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  const identity = processIdentity(child.pid ?? 0);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  if (identity === null) throw new Error('sleep did not start');
  return identity;
}

function ownIdentity(): ProcessIdentity {
  const identity = processIdentity(process.pid);
  if (identity === null) throw new Error('no /proc');
  return identity;
}

const sleeper = { name: 'sleeper', command: ['sleep', '600'] };

/** A launcher process (test/fixtures/launcher-fixture.ts) whose servers are recorded in `cache`. */
async function startLauncher(cache: string, count: number, ...flags: string[]) {
  const child = spawn(process.execPath, [fixture, join(cache, 'logs'), String(count), ...flags], {
    env: { ...process.env, PLANT_STORE_CACHE_DIR: cache },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = watchOutput(child, 'the launcher');
  onTestFinished(async () => {
    child.kill('SIGKILL');
    await output.exited;
    await stopOrphanedServers(registryDir(cache));
  });
  await output.printed(']');
  if (flags.includes('--stop')) await output.printed('stopping');
  const pids = JSON.parse(output.output().split('\n')[0] ?? '') as number[];
  const servers = pids.flatMap((pid) => processIdentity(pid) ?? []);
  if (servers.length !== count) throw new Error(`a server exited:\n${output.output()}`);
  return {
    servers,
    async kill() {
      child.kill('SIGKILL');
      await output.exited;
    },
  };
}

describe('The registry of local servers', () => {
  it('When a server’s owner has exited, then the server is killed and its entry removed', async () => {
    const dir = registryDir(await temporaryDirectory());
    const server = startSleeper();
    recordServer(dir, server, sleeper, await exitedProcess());

    const stopped = await stopOrphanedServers(dir);

    expect(stopped).toEqual([{ ...server, name: 'sleeper' }]);
    expect(isRunning(server)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('When a server’s owner is running, then the server and its entry are left alone', async () => {
    const dir = registryDir(await temporaryDirectory());
    const server = startSleeper();
    recordServer(dir, server, sleeper);

    expect(killOrphans(dir)).toEqual([]);
    expect(isRunning(server)).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('When the owner’s pid now belongs to a process started later, then the owner counts as gone', async () => {
    const dir = registryDir(await temporaryDirectory());
    const server = startSleeper();
    const own = ownIdentity();
    recordServer(dir, server, sleeper, { pid: own.pid, startTime: own.startTime - 1 });

    expect(await stopOrphanedServers(dir)).toEqual([{ ...server, name: 'sleeper' }]);
    expect(isRunning(server)).toBe(false);
  });

  it('When a server’s pid now belongs to another process, then that process is not killed and the entry is removed', async () => {
    const dir = registryDir(await temporaryDirectory());
    const other = startSleeper();
    recordServer(dir, { pid: other.pid, startTime: other.startTime - 1 }, sleeper, {
      pid: other.pid,
      startTime: other.startTime - 2,
    });

    expect(killOrphans(dir)).toEqual([]);
    expect(isRunning(other)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('When a server has exited, then its entry is removed', async () => {
    const dir = registryDir(await temporaryDirectory());
    recordServer(dir, await exitedProcess(), sleeper, await exitedProcess());

    expect(killOrphans(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('When an entry is another user’s, then neither its server nor its entry is touched', async () => {
    const dir = registryDir(await temporaryDirectory());
    const server = startSleeper();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${String(server.pid)}-${String(server.startTime)}.json`),
      JSON.stringify({
        owner: await exitedProcess(),
        uid: (process.getuid?.() ?? 0) + 1,
        ...sleeper,
      }),
    );

    expect(killOrphans(dir)).toEqual([]);
    expect(isRunning(server)).toBe(true);
    expect(readdirSync(dir)).toEqual([`${String(server.pid)}-${String(server.startTime)}.json`]);
  });

  it('When an entry is still being written, then its server and the entry are left to its owner', async () => {
    const dir = registryDir(await temporaryDirectory());
    const server = startSleeper();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${String(server.pid)}-${String(server.startTime)}.json`), '{"own');

    expect(killOrphans(dir)).toEqual([]);
    expect(isRunning(server)).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('When entries were recorded before the machine last booted, then they are removed', async () => {
    const dir = registryDir(await temporaryDirectory());
    const earlierBoot = join(dirname(dirname(dir)), 'an-earlier-boot');
    mkdirSync(join(earlierBoot, '4026531836'), { recursive: true });
    writeFileSync(join(earlierBoot, '4026531836', '4242-1000.json'), '{}');

    killOrphans(dir);

    expect(readdirSync(dirname(dirname(dir)))).not.toContain('an-earlier-boot');
  });
});

describe('Launchers recording their servers', () => {
  it('When a launcher is killed with SIGKILL, then its servers exit by themselves', async () => {
    const launcher = await startLauncher(await temporaryDirectory(), 2);

    await launcher.kill();

    await expect.poll(() => launcher.servers.filter(isRunning)).toEqual([]);
  });

  it('When a launcher is killed while its servers are stopping, then their entries stay until a later start stops them', async () => {
    const cache = await temporaryDirectory();
    const launcher = await startLauncher(cache, 2, '--ignore-term', '--stop');

    await launcher.kill();

    expect(launcher.servers.filter(isRunning)).toEqual(launcher.servers);
    expect(readdirSync(registryDir(cache))).toHaveLength(2);
    const stopped = await stopOrphanedServers(registryDir(cache));
    expect(stopped.map(({ pid }) => pid).sort()).toEqual(
      launcher.servers.map(({ pid }) => pid).sort(),
    );
    expect(launcher.servers.filter(isRunning)).toEqual([]);
    expect(readdirSync(registryDir(cache))).toEqual([]);
  });

  it('When several launchers start servers at once and some are killed, then exactly the killed launchers’ servers are stopped', async () => {
    const cache = await temporaryDirectory();
    const launchers = await Promise.all(
      [1, 2, 3, 4].map(() => startLauncher(cache, 8, '--ignore-term')),
    );
    const [killedA, killedB, ...running] = launchers;
    const servers = (group: typeof launchers) => group.flatMap((launcher) => launcher.servers);

    expect(servers(launchers).filter(isRunning)).toHaveLength(32);
    expect(readdirSync(registryDir(cache))).toHaveLength(32);
    const killed = [killedA, killedB].filter((launcher) => launcher !== undefined);
    await Promise.all(killed.map((launcher) => launcher.kill()));
    const stopped = await stopOrphanedServers(registryDir(cache));

    const orphans = servers(killed);
    expect(stopped.map(({ pid }) => pid).sort()).toEqual(orphans.map(({ pid }) => pid).sort());
    expect(orphans.filter(isRunning)).toEqual([]);
    expect(servers(running).filter(isRunning)).toHaveLength(16);
    expect(readdirSync(registryDir(cache))).toHaveLength(16);
  });
});
