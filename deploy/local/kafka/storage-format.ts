import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runLogged } from '../process/run-logged.ts';
import { writeConfig } from './broker-config.ts';
import { javaArgs, type ClusterNode, type KafkaOptions } from './cluster-layout.ts';
import { scramUsers, type KafkaSecurity } from './security.ts';

/** Writes the node's configuration; formats its storage on the first start only. */
export async function formatOnce(
  options: KafkaOptions,
  node: ClusterNode,
  cluster: readonly ClusterNode[],
  security: string,
  id: string,
): Promise<void> {
  const configFile = await writeConfig(options, node, cluster);
  const formattedAs = join(node.dir, 'formatted-as');
  if (existsSync(join(node.dir, 'data', 'meta.properties'))) {
    const before = existsSync(formattedAs) ? await readFile(formattedAs, 'utf8') : 'plaintext';
    if (before !== security) throw new Error(formattedOtherwise(options.dir, before, security));
    return;
  }
  await runLogged(
    'java',
    javaArgs(
      options,
      node,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      id,
      '-c',
      configFile,
      // One node bootstraps a dynamic quorum of itself; several are listed as static voters.
      ...(cluster.length === 1 ? ['--standalone'] : []),
      ...(options.security === undefined ? [] : scramUsers(options.security)),
    ),
    {
      cwd: node.dir,
      logFile: node.logFile,
      secrets: Object.values(options.security?.passwords ?? {}),
    },
  );
  await writeFile(formattedAs, security);
}

/**
 * What a formatted storage was made for: plaintext, or SASL_SSL with these users' passwords (the
 * node count is held by the folder's layout, `assertLayoutMatches`).
 */
export function securityMode(security: KafkaSecurity | undefined): string {
  if (security === undefined) return 'plaintext';
  const users = Object.entries(security.passwords).toSorted(([a], [b]) => a.localeCompare(b));
  return `sasl_ssl ${createHash('sha256').update(JSON.stringify(users)).digest('hex')}`;
}

function formattedOtherwise(dir: string, before: string, now: string): string {
  const how =
    before === 'plaintext'
      ? 'without --secure'
      : now === 'plaintext'
        ? 'with --secure'
        : 'with other SCRAM users or passwords';
  return `${dir} holds a Kafka formatted ${how}: its users are made when it is formatted. Use another --dir, or delete this one to start afresh.`;
}

/** A Kafka cluster id: 16 random bytes, base64url; Kafka refuses ids that start with '-'. */
export function clusterId(): string {
  const id = randomBytes(16).toString('base64url');
  return id.startsWith('-') ? clusterId() : id;
}
