import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runLogged } from '../process/run-logged.ts';
import { provisionOnce } from '../provision/provision-cache.ts';

export const KAFKA_VERSION = '4.1.1';
export const KAFKA_CACHE_NAME = `kafka-${KAFKA_VERSION}`;

/** Downloads the broker's jars once per machine; returns the directory holding them. */
export async function provisionKafka(cache: string, logFile: string): Promise<string> {
  const home = await provisionOnce(cache, KAFKA_CACHE_NAME, async (dir) => {
    await copyFile(join(import.meta.dirname, 'kafka-runtime.pom.xml'), join(dir, 'pom.xml'));
    await runLogged(
      'mvn',
      [
        // Not quiet: Maven names each file it downloads, which the progress line counts.
        '-B',
        `-Dkafka.version=${KAFKA_VERSION}`,
        'dependency:copy-dependencies',
        '-DoutputDirectory=libs',
        '-DincludeScope=runtime',
      ],
      {
        cwd: dir,
        logFile,
        progress: {
          step: `downloading Kafka ${KAFKA_VERSION}'s jars (Maven: a minute or more the first time)`,
          counts: { line: /^\[INFO\] Downloaded from /, done: 'files downloaded' },
        },
      },
    );
  });
  return join(home, 'libs');
}
