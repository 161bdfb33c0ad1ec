import { readFileSync } from 'node:fs';
import type { KafkaConnection } from '#shared/kafka/connection.ts';
import type { Certificates } from '../provision/certificates.ts';

/** The brokers' own principal, a super user; it applies the ACLs. */
export const ADMIN = 'admin';
const SCRAM = 'SCRAM-SHA-512';

export interface KafkaSecurity {
  certificates: Certificates;
  /** SCRAM-SHA-512 users, created at format time, by name; must include ADMIN. */
  passwords: Readonly<Record<string, string>>;
}

/** `kafka-storage format` arguments creating every user. */
export function scramUsers(security: KafkaSecurity): string[] {
  return Object.entries(security.passwords).flatMap(([name, password]) => [
    '--add-scram',
    `${SCRAM}=[name=${name},password=${password}]`,
  ]);
}

/**
 * One SASL_SSL listener for clients and the broker itself (SCRAM-SHA-512; a client certificate is
 * checked against the CA when one is presented: the broker-wide `ssl.client.auth` applies to SSL
 * listeners only), the controller's on loopback with SASL PLAIN (KRaft controllers cannot use
 * SCRAM: its credentials live in the metadata they serve), and the StandardAuthorizer refusing
 * whatever no ACL allows.
 */
export function secureListenerProperties(
  security: KafkaSecurity,
  listener: string,
  controller: string,
): Record<string, string> {
  const password = adminPassword(security);
  const { caFile, serverFile } = security.certificates;
  return {
    listeners: `SASL_SSL://${listener},CONTROLLER://${controller}`,
    'advertised.listeners': `SASL_SSL://${listener}`,
    'inter.broker.listener.name': 'SASL_SSL',
    'listener.security.protocol.map': 'SASL_SSL:SASL_SSL,CONTROLLER:SASL_PLAINTEXT',
    'sasl.enabled.mechanisms': SCRAM,
    'sasl.mechanism.inter.broker.protocol': SCRAM,
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="${ADMIN}" password="${password}";`,
    'sasl.mechanism.controller.protocol': 'PLAIN',
    'listener.name.controller.sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.controller.plain.sasl.jaas.config': `org.apache.kafka.common.security.plain.PlainLoginModule required username="${ADMIN}" password="${password}" user_${ADMIN}="${password}";`,
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': serverFile,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': caFile,
    'listener.name.sasl_ssl.ssl.client.auth': 'requested',
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'allow.everyone.if.no.acl.found': 'false',
    'super.users': `User:${ADMIN}`,
  };
}

/** How `user` connects to `brokers` (comma-separated) of a secured stack. */
export function scramConnection(
  brokers: string,
  security: KafkaSecurity,
  user: string,
): KafkaConnection {
  const password = security.passwords[user];
  if (password === undefined) throw new Error(`no Kafka user ${user}`);
  return {
    brokers: brokers.split(','),
    ssl: { ca: readFileSync(security.certificates.caFile, 'utf8') },
    sasl: { mechanism: 'scram-sha-512', username: user, password },
  };
}

function adminPassword(security: KafkaSecurity): string {
  const password = security.passwords[ADMIN];
  if (password === undefined) throw new Error(`the Kafka users must include ${ADMIN}`);
  return password;
}
