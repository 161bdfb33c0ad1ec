import { join } from 'node:path';
import { inject, onTestFinished } from 'vitest';
import {
  openKafkaLinks,
  openStoreLink,
  withLinkListeners,
  type KafkaLink,
  type StoreLink,
} from '#local/faults/gray-links.ts';
import { freeNodePorts } from '#local/kafka/node-ports.ts';
import { cacheRoot } from '#local/provision/paths.ts';
import {
  provisionToxiproxy,
  startToxiproxy,
  type ToxiproxyServer,
} from '#local/faults/toxiproxy.ts';
import { connectStore } from '#writer/store/store-client.ts';
import { startWriter, type Writer } from '#writer/writer.ts';
import { createLogger } from '#shared/logger.ts';
import { temporaryDirectory } from './local-servers.ts';
import { ownKafka } from './own-kafka.ts';
import { writerOptions } from './writer.ts';

/** A toxiproxy of this test's own, stopped (every proxy with it) when the test ends. */
export async function ownToxiproxy(): Promise<ToxiproxyServer> {
  const dir = await temporaryDirectory();
  const binary = await provisionToxiproxy(cacheRoot(), join(dir, 'provision.log'));
  const server = await startToxiproxy({ binary, logFile: join(dir, 'toxiproxy.log') });
  onTestFinished(() => server.stop());
  return server;
}

/**
 * A Kafka broker of this test's own (`ownKafka`) with a link through `toxiproxy` for each name:
 * a client given `links.<name>.brokers` makes every request through that link's proxy.
 */
export async function ownKafkaWithLinks<Name extends string>(
  toxiproxy: ToxiproxyServer,
  names: readonly Name[],
  overrides: Record<string, string> = {},
): Promise<Awaited<ReturnType<typeof ownKafka>> & { links: Record<Name, KafkaLink> }> {
  const nodes = await withLinkListeners(await freeNodePorts(1), names);
  const links = await openKafkaLinks(toxiproxy.client, nodes, names);
  return { ...(await ownKafka(overrides, nodes)), links };
}

/** A link through `toxiproxy` to the store the tests share, or to the one of `storeUri`. */
export function storeLink(
  toxiproxy: ToxiproxyServer,
  name: string,
  storeUri: string = inject('mongoUri'),
): Promise<StoreLink> {
  return openStoreLink(toxiproxy.client, name, storeUri);
}

/**
 * A writer on the harness's topics, database and group (`settings`) that reaches the store
 * through a link of `toxiproxy` named `name`; stopped when the test ends.
 */
export async function writerBehindStoreLink(
  toxiproxy: ToxiproxyServer,
  settings: ReturnType<typeof writerOptions>,
  name: string,
): Promise<{ writer: Writer; link: StoreLink }> {
  const link = await storeLink(toxiproxy, name);
  return { writer: await writerOnStoreLink(link, settings), link };
}

/**
 * A writer (`settings`) that reaches the store through `link` and judges the store's distance by
 * it, as the writer process does; stopped when the test ends.
 */
export async function writerOnStoreLink(
  link: StoreLink,
  settings: ReturnType<typeof writerOptions>,
): Promise<Writer> {
  const database = settings.db.databaseName;
  const store = await connectStore(link.uri, createLogger('writer', 'silent'), { database });
  onTestFinished(() => store.close());
  const writer = await startWriter({
    ...settings,
    db: store.client.db(database),
    storeClient: store.client,
  });
  onTestFinished(() => writer.stop());
  return writer;
}
