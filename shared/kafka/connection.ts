import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';
import Type, { type Static, type TObject } from 'typebox';
import { readCertificates, readPrivateKey } from '../tls/files.ts';

/** How a service reaches Kafka: where, over TLS or not, and as whom. */
export const kafkaConnectionSettings = {
  KAFKA_BROKERS: Type.String({ minLength: 1, description: 'Comma-separated host:port list' }),
  KAFKA_SSL: Type.Boolean({ default: false }),
  KAFKA_SSL_CA_FILE: Type.Optional(
    Type.String({ minLength: 1, description: "PEM; Node's built-in CA list when unset" }),
  ),
  KAFKA_SSL_CERT_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM, for mTLS' })),
  KAFKA_SSL_KEY_FILE: Type.Optional(Type.String({ minLength: 1, description: 'PEM, for mTLS' })),
  KAFKA_SSL_CHECK_HOSTNAME: Type.Boolean({
    default: true,
    description: "Whether the broker's certificate must name the host connected to",
  }),
  KAFKA_SASL_MECHANISM: Type.Optional(
    Type.Union([
      Type.Literal('plain'),
      Type.Literal('scram-sha-256'),
      Type.Literal('scram-sha-512'),
    ]),
  ),
  KAFKA_SASL_USERNAME: Type.Optional(Type.String({ minLength: 1 })),
  KAFKA_SASL_PASSWORD: Type.Optional(Type.String({ minLength: 1, writeOnly: true })),
};

export type KafkaConnectionConfig = Static<TObject<typeof kafkaConnectionSettings>>;

/** The SASL mechanisms a user and password sign in with, as kafkajs types them. */
type PasswordSasl = Extract<SASLOptions, { password: string }>;

export interface KafkaConnection {
  brokers: string[];
  ssl?: ConnectionOptions;
  sasl?: PasswordSasl;
}

/** The kafkajs options of `config`; what is wrong with them goes to `problems`. */
export function kafkaConnectionOf(
  config: KafkaConnectionConfig,
  problems: string[],
): KafkaConnection {
  const brokers = config.KAFKA_BROKERS.split(',').map((broker) => broker.trim());
  const ssl = sslOf(config, problems);
  const sasl = saslOf(config, problems);
  return {
    brokers,
    ...(ssl === undefined ? {} : { ssl }),
    ...(sasl === undefined ? {} : { sasl }),
  };
}

function sslOf(config: KafkaConnectionConfig, problems: string[]): ConnectionOptions | undefined {
  const files = {
    KAFKA_SSL_CA_FILE: config.KAFKA_SSL_CA_FILE,
    KAFKA_SSL_CERT_FILE: config.KAFKA_SSL_CERT_FILE,
    KAFKA_SSL_KEY_FILE: config.KAFKA_SSL_KEY_FILE,
  };
  if (!config.KAFKA_SSL) {
    for (const [name, value] of Object.entries(files))
      if (value !== undefined) problems.push(`${name} is set but KAFKA_SSL is not true`);
    return undefined;
  }
  if ((files.KAFKA_SSL_CERT_FILE === undefined) !== (files.KAFKA_SSL_KEY_FILE === undefined))
    problems.push('KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE must be set together');
  const read = (name: keyof typeof files, reader: typeof readCertificates) => {
    const path = files[name];
    return path === undefined ? undefined : reader(name, path, problems);
  };
  const ca = read('KAFKA_SSL_CA_FILE', readCertificates);
  const cert = read('KAFKA_SSL_CERT_FILE', readCertificates);
  const key = read('KAFKA_SSL_KEY_FILE', readPrivateKey);
  return {
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined ? {} : { cert }),
    ...(key === undefined ? {} : { key }),
    ...(config.KAFKA_SSL_CHECK_HOSTNAME ? {} : { checkServerIdentity: () => undefined }),
  };
}

function saslOf(config: KafkaConnectionConfig, problems: string[]): PasswordSasl | undefined {
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username } = config;
  const password = config.KAFKA_SASL_PASSWORD;
  if (mechanism === undefined) {
    if (username !== undefined || password !== undefined)
      problems.push('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM');
    return undefined;
  }
  if (username === undefined) problems.push(`KAFKA_SASL_USERNAME must be set with ${mechanism}`);
  if (password === undefined)
    problems.push(`KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE must be set with ${mechanism}`);
  if (username === undefined || password === undefined) return undefined;
  return { mechanism, username, password };
}
