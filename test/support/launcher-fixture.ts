// Run as a separate process by orphans.test.ts: a launcher that starts `count` servers (a sleep;
// with --ignore-term one that ignores SIGTERM, as a hung server would), prints their pids as one
// JSON line, with --stop then begins to stop them, and runs until it is killed. The registry is
// the one of PLANT_STORE_CACHE_DIR.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServerProcess } from '#local/process/server-process.ts';

const [logDir, count, ...flags] = process.argv.slice(2);
if (logDir === undefined || count === undefined)
  throw new Error('usage: launcher-fixture.ts <log-dir> <count> [--ignore-term] [--stop]');

const servers = Array.from({ length: Number(count) }, (_, index) =>
  startServerProcess({
    name: `sleeper ${String(index)}`,
    command: 'sh',
    args: ['-c', `${flags.includes('--ignore-term') ? "trap '' TERM; " : ''}exec sleep 600`],
    logFile: join(logDir, `sleeper-${String(process.pid)}-${String(index)}.log`),
  }),
);
// Once each runs sleep, the shell before it has set its trap: a SIGTERM now meets the server.
const runsSleep = (pid: number) => readFileSync(`/proc/${String(pid)}/comm`, 'utf8') === 'sleep\n';
while (!servers.every((server) => runsSleep(server.pid))) await sleep(10);
console.log(JSON.stringify(servers.map((server) => server.pid)));
if (flags.includes('--stop')) {
  void Promise.all(servers.map((server) => server.stop()));
  console.log('stopping');
}
setInterval(() => {}, 60_000);
