// Run as a separate process by provisioning-lock.test.ts: provisions `thing` in the given cache
// with a slow build that records each time it runs, then prints the provisioned directory.
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { provisionOnce } from '#local/provision/provision-cache.ts';

const [cache, buildLog] = process.argv.slice(2);
if (!cache || !buildLog) throw new Error('usage: provision-fixture.ts <cache> <build-log>');

const dir = await provisionOnce(cache, 'thing', async (workDir) => {
  await appendFile(buildLog, `${process.pid}\n`);
  await writeFile(join(workDir, 'part-1'), 'one');
  await sleep(1_500);
  await writeFile(join(workDir, 'part-2'), 'two');
});
console.log(dir);
