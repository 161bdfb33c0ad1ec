import { createPublicKey } from 'node:crypto';
import { hostname } from 'node:os';
import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import type { Topics } from '#shared/contracts/kafka.ts';
import { failOn, readConfig } from '#shared/config.ts';
import { sharedSettings, topicsOf } from '#shared/service-settings.ts';
import { httpLimitSettings, type HttpLimits } from '#shared/http/limits.ts';
import { kafkaConnectionOf } from '#shared/kafka/connection.ts';
import { shutdownSettings } from '#shared/shutdown.ts';
import { startUpSettings } from '#shared/start-up.ts';
import type { JwtOptions } from './auth/jwt-tokens.ts';
import type { RefusalPacing } from './auth/refusal-pacing.ts';
import type { ReplyPartitionChoice } from './kafka/reply-partition.ts';

/** Asymmetric only: an HMAC algorithm would let anyone holding the public key sign tokens. */
const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/**
 * @internal Exported because the deployment tests check the manifests and compose file name only variables this schema knows.
 */
export const GatewayConfig = Type.Object({
  ...sharedSettings,
  ...shutdownSettings,
  ...startUpSettings,
  ...httpLimitSettings,
  PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65_535 }),
  HOST: Type.String({ default: '127.0.0.1', description: '0.0.0.0 in containers' }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65_535,
      description:
        '/metrics (and the probes) on a port of their own, no longer on PORT; 0 picks a free port (logged). Unset: /metrics on PORT',
    }),
  ),
  AUTH_TOKENS: Type.Optional(
    Type.String({
      minLength: 1,
      writeOnly: true,
      description: 'Comma-separated static bearer tokens',
    }),
  ),
  JWT_JWKS_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  JWT_PUBLIC_KEY: Type.Optional(Type.String({ minLength: 1, description: 'PEM (SPKI)' })),
  JWT_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  JWT_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  JWT_ALGORITHMS: Type.String({ default: 'RS256,ES256,EdDSA' }),
  JWT_CLOCK_TOLERANCE_S: Type.Integer({ default: 5, minimum: 0, maximum: 300 }),
  AUTH_REFUSALS_PER_SECOND: Type.Integer({
    default: 50,
    minimum: 0,
    description: 'Refused bearer tokens answered at once each second; the others wait',
  }),
  AUTH_REFUSAL_DELAY_MS: Type.Integer({
    default: 1_000,
    minimum: 0,
    description: 'How long a refused token beyond AUTH_REFUSALS_PER_SECOND waits for its 401',
  }),
  RATE_LIMIT_PER_MINUTE: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Creates per token per minute; off when unset' }),
  ),
  REPLY_TIMEOUT_MS: Type.Integer({ default: 5_000, minimum: 1 }),
  REPLY_PARTITION: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'The partition of the reply topic this gateway reads and names on its commands; by default one its host name and port hash to',
    }),
  ),
  PUBLISH_LINGER_MAX_MS: Type.Integer({
    default: 8,
    minimum: 0,
    maximum: 100,
    description:
      'The longest a send of commands waits for more when they arrive fast enough to fill it; 0 sends at once',
  }),
  MAX_IN_FLIGHT: Type.Integer({ default: 10_000, minimum: 1 }),
  CREATE_LATENCY_TARGET_MS: Type.Integer({
    default: 25,
    minimum: 0,
    maximum: 60_000,
    description:
      'The latency creates may take, or twice that of their path without a queue if longer: when even the fastest of 100 ms took longer, the gateway admits fewer at once (between 32 and MAX_IN_FLIGHT, from 1000); 0: always MAX_IN_FLIGHT',
  }),
  MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
    default: 1_000,
    minimum: 0,
    description: 'Mean event-loop delay above which requests get 503; 0 turns it off',
  }),
  SHUTDOWN_DRAIN_MS: Type.Integer({
    default: 0,
    minimum: 0,
    description: 'How long a stopping gateway keeps serving with /readyz at 503',
  }),
  BODY_LIMIT_BYTES: Type.Integer({ default: 16_384, minimum: 64 }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    default: 10_000,
    minimum: 1,
    description: 'How long a client may take to send a whole request before 408',
  }),
});

export interface Authentication {
  authTokens: string[];
  jwt?: JwtOptions;
}

/**
 * What the HTTP layer runs with, handed whole to `gatewayApp` and from there to each plugin and
 * route, which names what it reads of it (`Pick`). A setting that may be off is `undefined` then,
 * so it is passed on as it is rather than spread in when present.
 */
export interface HttpSettings extends HttpLimits {
  /** Static bearer tokens; with `jwt`, either is accepted. At least one must be configured. */
  authTokens: readonly string[];
  jwt?: JwtOptions | undefined;
  /** How many 401s a second are answered at once, and how long the others wait. */
  refusalPacing: RefusalPacing;
  bodyLimitBytes: number;
  /** How long a client may take to send a whole request, headers and body, before 408. */
  requestTimeoutMs: number;
  /** Creates each token may make per minute; unlimited when undefined. */
  rateLimitPerMinute?: number | undefined;
  /** Mean event-loop delay above which requests are refused with 503; 0 turns the check off. */
  maxEventLoopDelayMs: number;
  /** How often that delay is sampled (1 s unless a test needs it sooner). */
  eventLoopSampleMs?: number | undefined;
  /** How long a stopping gateway keeps serving with `/readyz` at 503, so balancers drain it. */
  shutdownDrainMs: number;
  /** The topics this deployment uses, named by the AsyncAPI document. */
  topics: Topics;
  /** Whether `/metrics` is served on this port: not when it has a port of its own. */
  metricsOnApiPort: boolean;
}

/** What a gateway runs with: the HTTP layer's settings and those of creates over Kafka. */
export interface GatewaySettings extends HttpSettings {
  replyTimeoutMs: number;
  /** The longest a send of commands lingers for more (shared/batching/arrival-linger.ts); 0: never. */
  publishLingerMaxMs: number;
  /** Requests that may wait for a writer at once; more are refused rather than queued. */
  maxInFlight: number;
  /** Creates slower than this (or twice their path's latency) lower the admission limit. */
  createLatencyTargetMs: number;
  partitions: number;
  replyPartition: ReplyPartitionChoice;
}

/** What an unset variable means for the HTTP layer: the bench's baselines run with these. */
const HTTP_DEFAULT_NAMES = [
  'BODY_LIMIT_BYTES',
  'REQUEST_TIMEOUT_MS',
  'HEADERS_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
  'MAX_EVENT_LOOP_DELAY_MS',
  'AUTH_REFUSALS_PER_SECOND',
  'AUTH_REFUSAL_DELAY_MS',
] as const;
/**
 * @public Exported because the bench runs its baselines at the shipped defaults (bench/variants/baseline-app.ts).
 */
export const HTTP_DEFAULTS = Value.Default(
  Type.Pick(GatewayConfig, HTTP_DEFAULT_NAMES),
  {},
) as Pick<Static<typeof GatewayConfig>, (typeof HTTP_DEFAULT_NAMES)[number]>;

/**
 * The admission limit's settings by default: what the bench's ceiling admits with.
 * @public Exported because the bench runs its ceiling at the shipped admission limit (bench/variants/baseline-app.ts).
 */
export const ADMISSION_DEFAULTS = Value.Default(
  Type.Pick(GatewayConfig, ['MAX_IN_FLIGHT', 'CREATE_LATENCY_TARGET_MS']),
  {},
) as Pick<Static<typeof GatewayConfig>, 'MAX_IN_FLIGHT' | 'CREATE_LATENCY_TARGET_MS'>;

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = readConfig(GatewayConfig, env);
  const problems: string[] = [];
  const kafka = kafkaConnectionOf(config, problems);
  const authentication = authenticationOf(config, problems);
  failOn(problems);
  return { ...config, kafka, ...authentication };
}

/**
 * The gateway's settings from its variables: the one place their names are mapped. The
 * connection cap is derived from the process (`connectionCap`), once, by the caller.
 */
export function gatewaySettingsOf(
  config: ReturnType<typeof readGatewayConfig>,
  { maxConnections }: { maxConnections: number },
): GatewaySettings {
  return {
    authTokens: config.authTokens,
    jwt: config.jwt,
    refusalPacing: {
      perSecond: config.AUTH_REFUSALS_PER_SECOND,
      delayMs: config.AUTH_REFUSAL_DELAY_MS,
    },
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    maxConnections,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    maxEventLoopDelayMs: config.MAX_EVENT_LOOP_DELAY_MS,
    shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
    topics: topicsOf(config),
    metricsOnApiPort: config.METRICS_PORT === undefined,
    replyTimeoutMs: config.REPLY_TIMEOUT_MS,
    publishLingerMaxMs: config.PUBLISH_LINGER_MAX_MS,
    maxInFlight: config.MAX_IN_FLIGHT,
    createLatencyTargetMs: config.CREATE_LATENCY_TARGET_MS,
    partitions: config.KAFKA_PARTITIONS,
    replyPartition: {
      configured: config.REPLY_PARTITION,
      instanceId: `${hostname()}:${String(config.PORT)}`,
    },
  };
}

/** Static tokens, JWT or both; never neither. */
function authenticationOf(
  config: Static<typeof GatewayConfig>,
  problems: string[],
): Authentication {
  const authTokens = (config.AUTH_TOKENS ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter(Boolean);
  const { JWT_JWKS_URL: jwksUrl, JWT_PUBLIC_KEY: publicKeyPem } = config;
  if (jwksUrl === undefined && publicKeyPem === undefined) {
    if (authTokens.length === 0)
      problems.push(
        'set AUTH_TOKENS, JWT_JWKS_URL or JWT_PUBLIC_KEY; the gateway does not start without authentication',
      );
    return { authTokens };
  }
  if (jwksUrl !== undefined && publicKeyPem !== undefined)
    problems.push('set only one of JWT_JWKS_URL and JWT_PUBLIC_KEY');
  if (config.JWT_ISSUER === undefined) problems.push('JWT_ISSUER must be set with JWT');
  if (config.JWT_AUDIENCE === undefined) problems.push('JWT_AUDIENCE must be set with JWT');
  const algorithms = config.JWT_ALGORITHMS.split(',').map((name) => name.trim());
  const refused = algorithms.filter((name) => !JWT_ALGORITHMS.includes(name));
  if (refused.length > 0 || algorithms.length === 0)
    problems.push(
      `JWT_ALGORITHMS may list only ${JWT_ALGORITHMS.join(', ')} (got "${refused.join(',')}")`,
    );
  if (publicKeyPem !== undefined && !isPublicKey(publicKeyPem))
    problems.push('JWT_PUBLIC_KEY must be a PEM public key');
  return {
    authTokens,
    jwt: {
      jwksUrl,
      publicKeyPem,
      issuer: config.JWT_ISSUER ?? '',
      audience: config.JWT_AUDIENCE ?? '',
      algorithms,
      clockToleranceS: config.JWT_CLOCK_TOLERANCE_S,
    },
  };
}

function isPublicKey(pem: string): boolean {
  try {
    return createPublicKey(pem).type === 'public';
  } catch {
    return false;
  }
}
