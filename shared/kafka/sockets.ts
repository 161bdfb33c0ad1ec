import type { Socket } from 'node:net';
import type { Admin, Consumer, Producer, RequestTimeoutEvent } from 'kafkajs';
import { Counter } from 'prom-client';
import type { Logger } from '../logger.ts';

/**
 * Kafka requests the process's clients gave up waiting for, by API. One per process, as its Kafka
 * clients are: each service registers it in its own registry (shared/metrics.ts).
 */
export const kafkaRequestTimeouts = new Counter({
  name: 'plant_store_kafka_request_timeouts_total',
  help: 'Kafka requests that had no answer in time, by API; each replaced the connections to its broker',
  labelNames: ['api'],
  registers: [],
});

/** The sockets a Kafka object's clients hold open, by the broker (`host:port`) they reach. */
export interface BrokerSockets {
  opened(broker: string, socket: Socket): void;
  /** Replaces every connection to `broker`: kafkajs sees each fail, and connects anew. */
  replace(broker: string, why: string): number;
}

export function brokerSockets(): BrokerSockets {
  const byBroker = new Map<string, Set<Socket>>();
  return {
    opened(broker, socket) {
      let sockets = byBroker.get(broker);
      if (sockets === undefined) {
        sockets = new Set();
        byBroker.set(broker, sockets);
      }
      sockets.add(socket);
      socket.once('close', () => {
        sockets.delete(socket);
        if (sockets.size === 0 && byBroker.get(broker) === sockets) byBroker.delete(broker);
      });
    },
    replace(broker, why) {
      const sockets = [...(byBroker.get(broker) ?? [])];
      // With an error, so that kafkajs rejects what waits on the socket and marks it disconnected
      // ('error' is what it listens to; a plain destroy() emits only 'close').
      for (const socket of sockets) socket.destroy(new Error(why));
      return sockets.length;
    },
  };
}

type WatchedClient = Pick<Admin | Consumer | Producer, 'on'> & {
  events: { REQUEST_TIMEOUT: string };
};

/**
 * kafkajs rejects a request that outlived its timeout but keeps using its connection. On a path
 * that drops packets without a reset (a black hole, a half-cut link) that socket stays open until
 * TCP gives up, about 15 minutes, and every later request on it times out too (kafkajs issues
 * #1163, #42). So a timed-out request replaces its broker's connections: kafkajs reconnects on the
 * next request, which fails fast while the path is down and works at once when it heals.
 */
export function replaceOnRequestTimeout<T extends WatchedClient>(
  client: T,
  sockets: BrokerSockets,
  logger: Logger,
): T {
  (client.on as (event: string, listener: (event: RequestTimeoutEvent) => void) => void)(
    client.events.REQUEST_TIMEOUT,
    ({ payload }) => {
      const { broker, apiName, pendingDuration } = payload;
      const why = `no answer from Kafka broker ${broker} to ${apiName} in time: replacing the connection`;
      const replaced = sockets.replace(broker, why);
      kafkaRequestTimeouts.inc({ api: apiName });
      logger.warn({ broker, apiName, pendingDuration, replaced }, why);
    },
  );
  return client;
}
