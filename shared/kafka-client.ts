import { connect } from 'node:net';
import { Kafka, logLevel, type ISocketFactory } from 'kafkajs';
import { registerKafkaCodecs } from './kafka-codecs.ts';

/**
 * kafkajs's own sockets keep Nagle's algorithm on, so a small request written while an earlier
 * one is unacknowledged (a produce beside a fetch in flight) waits for the peer's ACK. Commands
 * and replies are small and latency-bound: send them at once.
 */
const noDelaySocket: ISocketFactory = ({ host, port, onConnect }) =>
  connect({ host, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 60_000 }, onConnect);

/**
 * The Kafka client of a plant-store service: plaintext brokers from a comma-separated list; reads
 * every codec a producer may use (gzip, snappy, lz4, zstd).
 */
export function kafkaClient(clientId: string, brokers: string): Kafka {
  registerKafkaCodecs();
  return new Kafka({
    clientId,
    brokers: brokers.split(',').map((broker) => broker.trim()),
    logLevel: logLevel.WARN,
    socketFactory: noDelaySocket,
    // kafkajs's default backs off up to 30 s between attempts and gives up after ~9 s in all: a
    // broker back after a 4 s restart was reached only 15 s after it went down (npm run chaos).
    // Frequent, capped attempts with a budget longer than a restart reconnect within a second.
    retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: 30 },
  });
}
