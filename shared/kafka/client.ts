import { connect as connectPlain, isIP } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import {
  Kafka,
  logLevel,
  type AdminConfig,
  type ConsumerConfig,
  type ISocketFactory,
  type ISocketFactoryArgs,
  type KafkaConfig,
  type ProducerConfig,
} from 'kafkajs';
import type { KafkaConnection } from './connection.ts';
import { brokerSockets, replaceOnRequestTimeout, type BrokerSockets } from './sockets.ts';
import { kafkaLogCreator } from './log.ts';
import type { Logger } from '../logger.ts';
import { registerKafkaCodecs } from './codecs.ts';
import { patchKafkajs } from './kafkajs-patches/install.ts';

/**
 * kafkajs's own sockets keep Nagle's algorithm on, so a small request written while an earlier
 * one is unacknowledged (a produce beside a fetch in flight) waits for the peer's ACK. Commands
 * and replies are small and latency-bound: send them at once. TLS as kafkajs's own factory does it
 * (the server name sent when the broker is named by host, not by IP); kafkajs passes `ssl: null`
 * without TLS, which its types do not say.
 */
function noDelaySockets(sockets: BrokerSockets): ISocketFactory {
  return ({
    host,
    port,
    ssl,
    onConnect,
  }: Omit<ISocketFactoryArgs, 'ssl'> & { ssl: ConnectionOptions | null }) => {
    const socket = ssl
      ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
      : connectPlain({ host, port }, onConnect);
    sockets.opened(`${host}:${String(port)}`, socket);
    return socket.setNoDelay(true).setKeepAlive(true, 60_000);
  };
}

/** A Kafka whose clients replace a broker's connections once a request to it timed out. */
class ReconnectingKafka extends Kafka {
  readonly #sockets: BrokerSockets;
  readonly #logger: Logger;

  constructor(config: KafkaConfig, sockets: BrokerSockets, logger: Logger) {
    super(config);
    this.#sockets = sockets;
    this.#logger = logger;
  }

  override producer(config?: ProducerConfig) {
    return replaceOnRequestTimeout(super.producer(config), this.#sockets, this.#logger);
  }

  override consumer(config: ConsumerConfig) {
    return replaceOnRequestTimeout(super.consumer(config), this.#sockets, this.#logger);
  }

  override admin(config?: AdminConfig) {
    return replaceOnRequestTimeout(super.admin(config), this.#sockets, this.#logger);
  }
}

/** How long a request waits for its answer, unless kafkajs gives it longer (joins, fetches). */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The Kafka client of a plant-store service, over TLS and SASL when `connection` says so; reads
 * every codec a producer may use (gzip, snappy, lz4, zstd); logs its warnings and errors through
 * the service's `logger`. kafkajs's own gaps are closed for every client of the process
 * (kafkajs-patches/).
 */
export function kafkaClient(clientId: string, connection: KafkaConnection, logger: Logger): Kafka {
  registerKafkaCodecs();
  patchKafkajs();
  const sockets = brokerSockets();
  const config: KafkaConfig = {
    clientId,
    ...connection,
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(logger),
    socketFactory: noDelaySockets(sockets),
    // kafkajs waits 30 s by default. A request that needs longer (a group join, a long fetch)
    // has a timeout of its own, from the session and wait settings; every other request answers
    // in milliseconds, and one without an answer for 10 s is taken for a dead path.
    requestTimeout: REQUEST_TIMEOUT_MS,
    // kafkajs's default backs off up to 30 s between attempts and gives up after ~9 s in all: a
    // broker back after a restart of seconds was reached only several times as late
    // (npm run chaos).
    // Frequent, capped attempts with a budget longer than a restart reconnect within a second.
    retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: 30 },
  };
  return new ReconnectingKafka(config, sockets, logger);
}
