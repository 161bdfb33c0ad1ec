import Type from 'typebox';
import { WRITER_GROUP } from '#shared/contracts/kafka.ts';
import { failOn, readConfig } from '#shared/config.ts';
import { sharedSettings } from '#shared/service-settings.ts';
import { httpLimitSettings } from '#shared/http/limits.ts';
import { kafkaConnectionOf } from '#shared/kafka/connection.ts';
import { readCertificates } from '#shared/tls/files.ts';
import { ANSWER_LINGER_MAX_MS } from './lanes/lane-tuning.ts';
import { SESSION_TIMEOUT_MS } from './writer.ts';
import { shutdownSettings } from '#shared/shutdown.ts';
import { startUpSettings } from '#shared/start-up.ts';

/**
 * @internal Exported because the deployment tests check the manifests and compose file name only variables this schema knows.
 */
export const WriterConfig = Type.Object({
  ...sharedSettings,
  ...shutdownSettings,
  ...startUpSettings,
  ...httpLimitSettings,
  MONGODB_URI: Type.String({ pattern: '^mongodb(\\+srv)?://', writeOnly: true }),
  MONGODB_TLS_CA_FILE: Type.Optional(
    Type.String({ minLength: 1, description: 'PEM; turns TLS on' }),
  ),
  MONGODB_DATABASE: Type.String({ default: 'plantstore', minLength: 1 }),
  KAFKA_WRITER_GROUP: Type.String({ default: WRITER_GROUP, minLength: 1 }),
  KAFKA_SESSION_TIMEOUT_MS: Type.Integer({
    default: SESSION_TIMEOUT_MS,
    minimum: 1_000,
    maximum: 300_000,
    description:
      "How long a crashed writer's partitions wait; below 6 s only where the brokers' group.min.session.timeout.ms allows it",
  }),
  ANSWER_LINGER_MAX_MS: Type.Integer({
    default: ANSWER_LINGER_MAX_MS,
    minimum: 0,
    maximum: 100,
    description:
      'The longest the writer waits after answering before it fetches again, when commands arrive fast enough to be worth it; 0 fetches at once',
  }),
  HOST: Type.String({ default: '127.0.0.1', description: '0.0.0.0 in containers' }),
  METRICS_PORT: Type.Integer({
    default: 9464,
    minimum: 0,
    maximum: 65_535,
    description: '/metrics, /healthz and /readyz; 0 picks a free port (logged)',
  }),
});

export function readWriterConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = readConfig(WriterConfig, env);
  const problems: string[] = [];
  const kafka = kafkaConnectionOf(config, problems);
  const caFile = config.MONGODB_TLS_CA_FILE;
  if (caFile !== undefined) readCertificates('MONGODB_TLS_CA_FILE', caFile, problems);
  failOn(problems);
  return { ...config, kafka };
}
