import { Kafka, logLevel } from 'kafkajs';
import { failOn } from '../config.ts';
import type { KafkaConnection } from './connection.ts';
import { tlsReason, untrustedCertificate } from '../tls/errors.ts';

/** Node's code for a certificate that names another host. */
const WRONG_NAME = 'ERR_TLS_CERT_ALTNAME_INVALID';
/**
 * The broker's alert about the client's certificate: one its CA did not sign, expired, or none
 * where one is required. OpenSSL names the alert by protocol version (SSLv3 before 3.2).
 */
const CLIENT_CERTIFICATE_REFUSED =
  /^ERR_SSL_(SSL\/TLS|SSLV3|TLSV1|TLSV13)_ALERT_(BAD_CERTIFICATE|CERTIFICATE_|UNKNOWN_CA)/;

/**
 * Connects once, so that settings the cluster refuses stop a service at start-up with the setting
 * named: kafkajs would retry a certificate it does not trust for half a minute, and a refused
 * password surfaces as a stack trace. A broker that cannot be reached is not a settings problem:
 * the service starts and its client keeps trying.
 */
export async function checkKafkaAccess(connection: KafkaConnection): Promise<void> {
  const admin = new Kafka({
    clientId: 'plant-store-access-check',
    ...connection,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
  } catch (error) {
    const problem = settingRefused(error, connection);
    if (problem !== undefined) failOn([problem]);
  } finally {
    await admin.disconnect();
  }
}

/**
 * What is wrong with the settings when `error` says the cluster refused them.
 * @internal Exported because its unit test feeds it each refusal of the cluster, which one test cluster cannot all produce.
 */
export function settingRefused(error: unknown, connection: KafkaConnection): string | undefined {
  const untrusted = untrustedCertificate(error);
  if (untrusted !== undefined)
    return `the broker's certificate is not trusted: check KAFKA_SSL_CA_FILE (${untrusted})`;
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    const { code, type, name, message } = at as Error & { code?: unknown; type?: unknown };
    if (name === 'KafkaJSSASLAuthenticationError')
      return `Kafka refused the credentials of KAFKA_SASL_USERNAME "${connection.sasl?.username ?? ''}": check KAFKA_SASL_PASSWORD and KAFKA_SASL_MECHANISM (${message})`;
    if (type === 'UNSUPPORTED_SASL_MECHANISM')
      return `Kafka does not accept KAFKA_SASL_MECHANISM "${connection.sasl?.mechanism ?? ''}" (${message})`;
    if (typeof code === 'string' && CLIENT_CERTIFICATE_REFUSED.test(code))
      return `the broker refused the client certificate: check KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE (${tlsReason(message)})`;
    if (code === WRONG_NAME)
      return `the broker's certificate does not name the host connected to: check KAFKA_BROKERS, or KAFKA_SSL_CHECK_HOSTNAME (${tlsReason(message)})`;
  }
  return undefined;
}
