import { describe, expect, it } from 'vitest';
import { settingRefused } from '#shared/kafka/access.ts';

const connection = {
  brokers: ['b1:9093'],
  ssl: {},
  sasl: { mechanism: 'scram-sha-512' as const, username: 'gateway', password: 'pw' },
};

function error(name: string, message: string, fields: object = {}, cause?: Error): Error {
  return Object.assign(new Error(message, cause === undefined ? {} : { cause }), { name }, fields);
}

describe('Settings the cluster refuses at start-up', () => {
  it('When SASL authentication fails, then the problem names the user and the password setting, never the password', () => {
    const problem = settingRefused(
      error(
        'KafkaJSSASLAuthenticationError',
        'SASL SCRAM SHA512 authentication failed: invalid credentials',
      ),
      connection,
    );

    expect(problem).toBe(
      'Kafka refused the credentials of KAFKA_SASL_USERNAME "gateway": check KAFKA_SASL_PASSWORD and KAFKA_SASL_MECHANISM (SASL SCRAM SHA512 authentication failed: invalid credentials)',
    );
    expect(problem).not.toContain('pw"');
  });

  it("When the broker's certificate is untrusted or names another host, then the problem names the TLS setting to check", () => {
    const untrusted = error(
      'KafkaJSNumberOfRetriesExceeded',
      'Connection error',
      {},
      error(
        'KafkaJSConnectionError',
        'Connection error: unable to verify the first certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
        { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
      ),
    );
    const wrongHost = error(
      'KafkaJSConnectionError',
      "Connection error: Hostname/IP does not match certificate's altnames",
      {
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      },
    );

    expect(settingRefused(untrusted, connection)).toBe(
      "the broker's certificate is not trusted: check KAFKA_SSL_CA_FILE (unable to verify the first certificate)",
    );
    expect(
      settingRefused(
        error(
          'KafkaJSConnectionError',
          'Connection error: 40BD:error:0A000416:SSL routines:ssl3_read_bytes:ssl/tls alert certificate unknown',
          { code: 'ERR_SSL_SSL/TLS_ALERT_CERTIFICATE_UNKNOWN' },
        ),
        connection,
      ),
    ).toBe(
      'the broker refused the client certificate: check KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE (40BD:error:0A000416:SSL routines:ssl3_read_bytes:ssl/tls alert certificate unknown)',
    );
    expect(settingRefused(wrongHost, connection)).toBe(
      "the broker's certificate does not name the host connected to: check KAFKA_BROKERS, or KAFKA_SSL_CHECK_HOSTNAME (Hostname/IP does not match certificate's altnames)",
    );
  });

  it.each([
    'ERR_SSL_SSL/TLS_ALERT_CERTIFICATE_UNKNOWN',
    'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA',
    'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED',
    'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE',
  ])(
    'When the broker sends the alert %s, then the problem names the client certificate settings',
    (code) => {
      expect(
        settingRefused(
          error('KafkaJSConnectionError', 'Connection error: alert', { code }),
          connection,
        ),
      ).toBe(
        'the broker refused the client certificate: check KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE (alert)',
      );
    },
  );

  it('When the mechanism is not enabled, then the problem names KAFKA_SASL_MECHANISM', () => {
    expect(
      settingRefused(
        error('KafkaJSProtocolError', 'The broker does not support the requested SASL mechanism', {
          type: 'UNSUPPORTED_SASL_MECHANISM',
        }),
        connection,
      ),
    ).toBe(
      'Kafka does not accept KAFKA_SASL_MECHANISM "scram-sha-512" (The broker does not support the requested SASL mechanism)',
    );
  });

  it('When the broker cannot be reached, then that is no settings problem: the service starts and keeps trying', () => {
    expect(
      settingRefused(
        error('KafkaJSConnectionError', 'Connection error: connect ECONNREFUSED 127.0.0.1:9092', {
          code: 'ECONNREFUSED',
        }),
        connection,
      ),
    ).toBeUndefined();
  });
});
