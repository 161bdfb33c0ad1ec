import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readGatewayConfig } from '#gateway/config.ts';
import { readWriterConfig } from '#writer/config.ts';

const CA_FILE = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'unit-test-ca.pem');
const writer = { KAFKA_BROKERS: 'b1:9093, b2:9093', MONGODB_URI: 'mongodb://127.0.0.1:27017' };
const gateway = { KAFKA_BROKERS: 'b1:9093', AUTH_TOKENS: 'token-1' };
let dir: string;
let keyFile: string;

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'connection-config-'));
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  keyFile = await file(
    'client.key',
    privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  );
});

describe('Kafka and store connection settings', () => {
  it('When nothing about security is set, then the services connect in plaintext without SASL', () => {
    expect(readWriterConfig(writer).kafka).toEqual({ brokers: ['b1:9093', 'b2:9093'] });
  });

  it('When TLS with a CA, a client certificate and SCRAM are set, then kafkajs gets the PEM contents and the credentials', async () => {
    const passwordFile = await file('password', 's3cret\n');

    const { kafka } = readGatewayConfig({
      ...gateway,
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: CA_FILE,
      KAFKA_SSL_CERT_FILE: CA_FILE,
      KAFKA_SSL_KEY_FILE: keyFile,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'gateway',
      KAFKA_SASL_PASSWORD_FILE: passwordFile,
    });

    expect(kafka.ssl?.ca).toContain('-----BEGIN CERTIFICATE-----');
    expect(kafka.ssl?.cert).toContain('-----BEGIN CERTIFICATE-----');
    expect(kafka.ssl?.key).toContain('-----BEGIN PRIVATE KEY-----');
    expect(kafka.ssl?.checkServerIdentity).toBeUndefined();
    expect(kafka.sasl).toEqual({
      mechanism: 'scram-sha-512',
      username: 'gateway',
      password: 's3cret',
    });
  });

  it("When TLS is on without a CA and with the host-name check off, then the system's CAs apply and any name is accepted", () => {
    const { kafka } = readWriterConfig({
      ...writer,
      KAFKA_SSL: 'true',
      KAFKA_SSL_CHECK_HOSTNAME: 'false',
    });

    expect(kafka.ssl?.ca).toBeUndefined();
    expect(kafka.ssl?.checkServerIdentity?.('other-host', {} as never)).toBeUndefined();
  });

  it('When the security settings are wrong in many ways, then one error names every problem', async () => {
    const notPem = await file('not.pem', 'hello');

    expect(() =>
      readWriterConfig({
        ...writer,
        KAFKA_SSL: 'true',
        KAFKA_SSL_CA_FILE: notPem,
        KAFKA_SSL_CERT_FILE: join(dir, 'missing.pem'),
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        MONGODB_TLS_CA_FILE: notPem,
      }),
    ).toThrow(
      'Invalid configuration: KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE must be set together; ' +
        `KAFKA_SSL_CA_FILE must hold PEM certificates (${notPem} does not); ` +
        `KAFKA_SSL_CERT_FILE cannot be read: ENOENT: no such file or directory, open '${join(dir, 'missing.pem')}'; ` +
        'KAFKA_SASL_USERNAME must be set with scram-sha-512; ' +
        'KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE must be set with scram-sha-512; ' +
        `MONGODB_TLS_CA_FILE must hold PEM certificates (${notPem} does not)`,
    );
    expect(() =>
      readWriterConfig({
        ...writer,
        KAFKA_SSL: 'maybe',
        KAFKA_SASL_MECHANISM: 'gssapi',
      }),
    ).toThrow(
      'KAFKA_SSL must be boolean (got "maybe"); ' +
        'KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512 (got "gssapi")',
    );
  });

  it('When TLS files or credentials are set without TLS or a mechanism, then start-up refuses them', () => {
    expect(() =>
      readGatewayConfig({
        ...gateway,
        KAFKA_SSL_CA_FILE: CA_FILE,
        KAFKA_SASL_USERNAME: 'gateway',
        KAFKA_SASL_PASSWORD: 'pw',
      }),
    ).toThrow(
      'Invalid configuration: KAFKA_SSL_CA_FILE is set but KAFKA_SSL is not true; ' +
        'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM',
    );
  });

  it('When secrets come from files, then the value is the file without its trailing newline', async () => {
    const uriFile = await file('uri', 'mongodb://writer:pw@store:27017/?tls=true\n');
    const tokensFile = await file('tokens', 'token-a,token-b\n');

    expect(
      readWriterConfig({ ...writer, MONGODB_URI: '', MONGODB_URI_FILE: uriFile }),
    ).toMatchObject({ MONGODB_URI: 'mongodb://writer:pw@store:27017/?tls=true' });
    expect(
      readGatewayConfig({ KAFKA_BROKERS: 'b1:9093', AUTH_TOKENS_FILE: tokensFile }).authTokens,
    ).toEqual(['token-a', 'token-b']);
  });

  it('When a secret is set twice, unreadable or invalid, then the error names the variable and never the value', async () => {
    const badUri = await file('bad-uri', 'postgres://writer:hunter2@store\n');

    const refusal = () =>
      readWriterConfig({
        KAFKA_BROKERS: 'b1:9093',
        MONGODB_URI_FILE: badUri,
        KAFKA_SASL_MECHANISM: 'plain',
        KAFKA_SASL_USERNAME: 'writer',
        KAFKA_SASL_PASSWORD: 'hunter2',
        KAFKA_SASL_PASSWORD_FILE: join(dir, 'nowhere'),
      });

    expect(refusal).toThrow(
      'Invalid configuration: KAFKA_SASL_PASSWORD and KAFKA_SASL_PASSWORD_FILE are both set; set only one; ' +
        'MONGODB_URI must match pattern "^mongodb(\\+srv)?://" (value hidden)',
    );
    expect(refusal).not.toThrow(/hunter2/);
    expect(() =>
      readGatewayConfig({ KAFKA_BROKERS: 'b1:9093', AUTH_TOKENS_FILE: join(dir, 'nowhere') }),
    ).toThrow(
      `Invalid configuration: AUTH_TOKENS_FILE cannot be read: ENOENT: no such file or directory, open '${join(dir, 'nowhere')}'`,
    );
  });
});
