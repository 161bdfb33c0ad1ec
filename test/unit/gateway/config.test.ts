import { hostname } from 'node:os';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { gatewaySettingsOf, readGatewayConfig } from '#gateway/config.ts';

const kafka = { KAFKA_BROKERS: '127.0.0.1:9092' };
const jwt = { JWT_ISSUER: 'https://issuer.test', JWT_AUDIENCE: 'plant-store' };
const publicPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ type: 'spki', format: 'pem' })
  .toString();

describe('Gateway authentication configuration', () => {
  it('When only static tokens are set, then they are trimmed and JWT is off', () => {
    const config = readGatewayConfig({ ...kafka, AUTH_TOKENS: ' one, two ,' });
    expect(config.authTokens).toEqual(['one', 'two']);
    expect(config.jwt).toBeUndefined();
  });

  it('When a JWKS URL is set with issuer and audience, then JWT uses the default algorithms and tolerance', () => {
    const config = readGatewayConfig({
      ...kafka,
      ...jwt,
      JWT_JWKS_URL: 'https://issuer.test/jwks',
    });
    expect(config.authTokens).toEqual([]);
    expect(config.jwt).toEqual({
      jwksUrl: 'https://issuer.test/jwks',
      issuer: 'https://issuer.test',
      audience: 'plant-store',
      algorithms: ['RS256', 'ES256', 'EdDSA'],
      clockToleranceS: 5,
    });
  });

  it('When a PEM public key is set, then JWT verifies with it', () => {
    const config = readGatewayConfig({ ...kafka, ...jwt, JWT_PUBLIC_KEY: publicPem });
    expect(config.jwt?.publicKeyPem).toBe(publicPem);
  });

  it('When no strategy is configured, then the gateway refuses to start', () => {
    expect(() => readGatewayConfig(kafka)).toThrow(
      'Invalid configuration: set AUTH_TOKENS, JWT_JWKS_URL or JWT_PUBLIC_KEY; the gateway does not start without authentication',
    );
  });

  it('When JWT is half configured, then one error names every problem', () => {
    expect(() =>
      readGatewayConfig({
        ...kafka,
        JWT_JWKS_URL: 'https://issuer.test/jwks',
        JWT_PUBLIC_KEY: 'not a key',
        JWT_ALGORITHMS: 'RS256,HS256,none',
      }),
    ).toThrow(
      'Invalid configuration: set only one of JWT_JWKS_URL and JWT_PUBLIC_KEY; ' +
        'JWT_ISSUER must be set with JWT; JWT_AUDIENCE must be set with JWT; ' +
        'JWT_ALGORITHMS may list only RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519 (got "HS256,none"); ' +
        'JWT_PUBLIC_KEY must be a PEM public key',
    );
    expect(() =>
      readGatewayConfig({ ...kafka, ...jwt, JWT_JWKS_URL: 'ftp://issuer.test' }),
    ).toThrow('JWT_JWKS_URL must match pattern "^https?://" (got "ftp://issuer.test")');
  });

  it('When RATE_LIMIT_PER_MINUTE is set, then it is a positive integer; unset, it is off', () => {
    const tokens = { ...kafka, AUTH_TOKENS: 'one' };
    expect(
      readGatewayConfig({ ...tokens, RATE_LIMIT_PER_MINUTE: '600' }).RATE_LIMIT_PER_MINUTE,
    ).toBe(600);
    expect(readGatewayConfig(tokens).RATE_LIMIT_PER_MINUTE).toBeUndefined();
    expect(() => readGatewayConfig({ ...tokens, RATE_LIMIT_PER_MINUTE: '0' })).toThrow(
      'RATE_LIMIT_PER_MINUTE must be >= 1 (got "0")',
    );
  });
});

describe('Gateway settings', () => {
  it('When the variables are read, then the settings the gateway runs with carry each of them', () => {
    const settings = gatewaySettingsOf(
      readGatewayConfig({
        ...kafka,
        AUTH_TOKENS: 'one',
        RATE_LIMIT_PER_MINUTE: '600',
        AUTH_REFUSALS_PER_SECOND: '20',
        AUTH_REFUSAL_DELAY_MS: '700',
        REPLY_TIMEOUT_MS: '2000',
        PUBLISH_LINGER_MAX_MS: '3',
        MAX_IN_FLIGHT: '50',
        CREATE_LATENCY_TARGET_MS: '250',
        MAX_EVENT_LOOP_DELAY_MS: '0',
        SHUTDOWN_DRAIN_MS: '3000',
        BODY_LIMIT_BYTES: '1024',
        REQUEST_TIMEOUT_MS: '4000',
        HEADERS_TIMEOUT_MS: '1500',
        KEEP_ALIVE_TIMEOUT_MS: '2500',
        KAFKA_PARTITIONS: '6',
        REPLY_PARTITION: '4',
        PORT: '3100',
        METRICS_PORT: '9464',
        KAFKA_CREATE_TOPIC: 'c',
        KAFKA_REPLY_TOPIC: 'r',
        KAFKA_DLQ_TOPIC: 'd',
      }),
      { maxConnections: 700 },
    );

    expect(settings).toStrictEqual({
      authTokens: ['one'],
      jwt: undefined,
      refusalPacing: { perSecond: 20, delayMs: 700 },
      rateLimitPerMinute: 600,
      replyTimeoutMs: 2_000,
      publishLingerMaxMs: 3,
      maxInFlight: 50,
      createLatencyTargetMs: 250,
      maxEventLoopDelayMs: 0,
      shutdownDrainMs: 3_000,
      bodyLimitBytes: 1_024,
      requestTimeoutMs: 4_000,
      headersTimeoutMs: 1_500,
      keepAliveTimeoutMs: 2_500,
      maxConnections: 700,
      partitions: 6,
      replyPartition: { configured: 4, instanceId: `${hostname()}:3100` },
      topics: { create: 'c', replies: 'r', dlq: 'd' },
      metricsOnApiPort: false,
    });
  });

  it('When METRICS_PORT is unset, then /metrics stays on the API port; when it is out of range, then start-up is refused, naming it', () => {
    const tokens = { ...kafka, AUTH_TOKENS: 'one' };
    const settingsWith = (env: NodeJS.ProcessEnv) =>
      gatewaySettingsOf(readGatewayConfig({ ...tokens, ...env }), { maxConnections: 10 });

    expect(settingsWith({}).metricsOnApiPort).toBe(true);
    expect(settingsWith({ METRICS_PORT: '0' }).metricsOnApiPort).toBe(false);
    expect(() => readGatewayConfig({ ...tokens, METRICS_PORT: '70000' })).toThrow(
      'METRICS_PORT must be <= 65535 (got "70000")',
    );
  });

  it('When REPLY_PARTITION is negative or not an integer, then start-up is refused, naming it', () => {
    const tokens = { ...kafka, AUTH_TOKENS: 'one' };
    expect(() => readGatewayConfig({ ...tokens, REPLY_PARTITION: '-1' })).toThrow(
      'REPLY_PARTITION must be >= 0 (got "-1")',
    );
    expect(() => readGatewayConfig({ ...tokens, REPLY_PARTITION: 'first' })).toThrow(
      /REPLY_PARTITION .*\(got "first"\)/,
    );
  });
});
