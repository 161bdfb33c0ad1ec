import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PRINCIPALS } from '#local/kafka/acls.ts';
import { ADMIN, secureListenerProperties } from '#local/kafka/security.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { readGatewayConfig } from '#gateway/config.ts';
import { readWriterConfig } from '#writer/config.ts';
import { topicsOf } from '#shared/service-settings.ts';
import {
  COMPOSE_FILE,
  composeEnvironment,
  composeFiles,
  interpolate,
  readComposeFile,
  serviceOf,
  withFiles,
  type ComposeService,
} from '../support/checks/deploy-manifests.ts';
import {
  manifestChecks,
  scratchFile,
  checkJsonSchema,
  grantsOf,
  sortedGrants,
} from '../support/checks/manifest-checks.ts';

const checks = manifestChecks();

describe('docker-compose.yml', () => {
  it('When it is checked against the Compose specification schema, then it passes', async () => {
    const run = await checkJsonSchema(checks, [
      '--builtin-schema',
      'vendor.compose-spec',
      COMPOSE_FILE,
    ]);

    expect(run.output).toContain('ok -- validation done');
    expect(run.exitCode).toBe(0);
  });

  it('When a service has a misspelt key or an unknown depends_on condition, then the schema check refuses it', async () => {
    const misspelt = await readComposeFile();
    const { command, ...writer } = serviceOf(misspelt, 'writer') as Record<string, unknown>;
    Object.assign(misspelt.services, { writer: { ...writer, comand: command } });
    const badCondition = await readComposeFile();
    const gateway = serviceOf(badCondition, 'gateway');
    gateway.depends_on = {
      ...gateway.depends_on,
      'kafka-topics': { condition: 'service_completed' },
    };

    const run = await checkJsonSchema(checks, [
      ...['--builtin-schema', 'vendor.compose-spec'],
      await scratchFile(checks, 'compose-misspelt.json', misspelt),
      await scratchFile(checks, 'compose-bad-condition.json', badCondition),
    ]);

    expect(run.output).toContain("('comand' was unexpected)");
    expect(run.output).toContain(
      "$.services.gateway.depends_on['kafka-topics'].condition: 'service_completed' is not one of",
    );
    expect(run.exitCode).toBe(1);
  });

  it('When writers are scaled to 3, then nothing pins one writer and each waits for the one-shot topic and replica-set services', async () => {
    const compose = await readComposeFile();
    const writer = serviceOf(compose, 'writer');

    expect(writer).not.toHaveProperty('container_name');
    expect(writer).not.toHaveProperty('ports');
    expect(writer.depends_on).toEqual({
      'kafka-topics': { condition: 'service_completed_successfully' },
      'mongo-init': { condition: 'service_completed_successfully' },
    });
    expect(['kafka-topics', 'mongo-init'].map((name) => serviceOf(compose, name).restart)).toEqual([
      'no',
      'no',
    ]);
  });

  it('When the services read their compose environment, then both accept it and use the topics the topic service creates', async () => {
    const compose = await readComposeFile();
    const environment = (name: string) =>
      Object.fromEntries(
        Object.entries(serviceOf(compose, name).environment ?? {}).map(([key, value]) => [
          key,
          interpolate(value, { AUTH_TOKENS: 'compose-token' }),
        ]),
      );
    const created = environment('kafka-topics');

    const writer = readWriterConfig(environment('writer'));
    const gateway = readGatewayConfig(environment('gateway'));

    const expected = {
      create: created.KAFKA_CREATE_TOPIC,
      replies: created.KAFKA_REPLY_TOPIC,
      dlq: created.KAFKA_DLQ_TOPIC,
    };
    expect(topicsOf(writer)).toEqual(expected);
    expect(topicsOf(gateway)).toEqual(expected);
    expect(writer.KAFKA_PARTITIONS).toBe(Number(created.KAFKA_PARTITIONS));
  });

  const SECURED = [
    'kafka-secured-tls',
    'kafka-secured',
    'kafka-secured-setup',
    'writer-secured',
    'gateway-secured',
  ];

  it('When `docker compose up` runs without a profile, then it starts the plaintext services alone and needs no variable of the secured profile', async () => {
    const compose = await readComposeFile();
    const services = Object.entries(compose.services);
    const plain = services.filter(([, service]) => service.profiles === undefined);
    const raw = parse(await readFile(join(projectRoot, COMPOSE_FILE), 'utf8')) as unknown;

    expect(plain.map(([name]) => name)).toEqual([
      'kafka',
      'kafka-topics',
      'mongo',
      'mongo-init',
      'writer',
      'gateway',
    ]);
    const needed = plain.flatMap(([, service]) => Object.keys(service.depends_on ?? {}));
    expect(needed.filter((name) => !plain.some(([plainName]) => plainName === name))).toEqual([]);
    expect(
      services.flatMap(([name, service]) => (service.profiles === undefined ? [] : [name])),
    ).toEqual(SECURED);
    expect(SECURED.map((name) => serviceOf(compose, name).profiles)).toEqual(
      SECURED.map(() => ['secured']),
    );
    // Compose interpolates every service before it applies profiles; a `$` left unescaped in a
    // script would be a variable of the file too.
    expect(() =>
      stringsOf(raw).map((text) => interpolate(text, { AUTH_TOKENS: 't' })),
    ).not.toThrow();
    expect(() => interpolate('for user in $SCRAM_USERS', {})).toThrow('SCRAM_USERS is not set');
    // Secrets from variables only: no password file beside the compose file.
    const secrets = Object.values(compose.secrets ?? {});
    expect(secrets.filter((secret) => Object.keys(secret).join() !== 'environment')).toEqual([]);
  });

  /** The variables `docker compose --profile secured up` is run with. */
  const securedShell: Record<string, string> = {
    AUTH_TOKENS: 'compose-token',
    ...Object.fromEntries(
      [ADMIN, ...PRINCIPALS].map((user) => [
        `PLANT_STORE_KAFKA_${user.toUpperCase()}_PASSWORD`,
        `${user}-password-0123456789`,
      ]),
    ),
  };

  /** The secured service's environment, its secrets and the CA the one-shot makes on disk. */
  async function securedEnvironment(
    compose: Awaited<ReturnType<typeof readComposeFile>>,
    name: string,
  ) {
    const generator = serviceOf(compose, 'kafka-secured-tls');
    const { CA_FILE: caFile = '' } = composeEnvironment(generator, securedShell);
    const volumes = {
      [volumeAt(generator, dirname(caFile))]: { [basename(caFile)]: checks.caPem },
    };
    return withFiles(
      composeEnvironment(serviceOf(compose, name), securedShell),
      composeFiles(compose, name, securedShell, volumes),
      join(checks.scratch, 'compose', name),
    );
  }

  it('When the secured writer and gateway read their environment with their secrets and the CA mounted, then both accept it and sign in as users Kafka is formatted with, on the listener it advertises', async () => {
    const compose = await readComposeFile();
    const kafka = serviceOf(compose, 'kafka-secured');
    const setup = composeEnvironment(serviceOf(compose, 'kafka-secured-setup'), securedShell);

    const writer = readWriterConfig(await securedEnvironment(compose, 'writer-secured'));
    const gateway = readGatewayConfig(await securedEnvironment(compose, 'gateway-secured'));

    const password = (user: string) =>
      securedShell[`PLANT_STORE_KAFKA_${user.toUpperCase()}_PASSWORD`];
    const signIn = (user: string) => ({
      brokers: [setup.KAFKA_BROKERS],
      ssl: { ca: checks.caPem },
      sasl: { mechanism: 'scram-sha-512', username: user, password: password(user) },
    });
    expect(writer.kafka).toEqual(signIn('writer'));
    expect(gateway.kafka).toEqual(signIn('gateway'));
    expect(gateway.authTokens).toEqual(['compose-token']);
    const users = composeEnvironment(kafka, securedShell).SCRAM_USERS?.split(' ');
    expect(users).toEqual([ADMIN, ...PRINCIPALS]);
    expect(kafka.secrets).toEqual(users?.map((user) => `kafka-${user}-password`));
    expect(brokerProperties(kafka)['advertised.listeners']?.split(',')).toContain(
      `SASL_SSL://${setup.KAFKA_BROKERS}`,
    );
    const created = {
      create: setup.KAFKA_CREATE_TOPIC,
      replies: setup.KAFKA_REPLY_TOPIC,
      dlq: setup.KAFKA_DLQ_TOPIC,
    };
    expect([topicsOf(writer), topicsOf(gateway)]).toEqual([created, created]);
  });

  it('When the secured Kafka is configured, then it sets every security property of the local secured stack, with the same values where they do not name files or listeners', async () => {
    const compose = await readComposeFile();
    const local = secureListenerProperties(
      {
        certificates: {
          caFile: '',
          caKeyFile: '',
          serverFile: '',
          serverCertFile: '',
          serverKeyFile: '',
        },
        passwords: { [ADMIN]: 'unused' },
      },
      '127.0.0.1:1',
      '127.0.0.1:2',
    );

    const properties = brokerProperties(serviceOf(compose, 'kafka-secured'));

    expect(Object.keys(properties)).toEqual(expect.arrayContaining(Object.keys(local)));
    const same = [
      'inter.broker.listener.name',
      'sasl.enabled.mechanisms',
      'sasl.mechanism.inter.broker.protocol',
      'sasl.mechanism.controller.protocol',
      'listener.name.controller.sasl.enabled.mechanisms',
      'ssl.truststore.type',
      'listener.name.sasl_ssl.ssl.client.auth',
      'authorizer.class.name',
      'allow.everyone.if.no.acl.found',
      'super.users',
    ];
    const pick = (entries: Record<string, string>) => same.map((key) => [key, entries[key]]);
    expect(pick(properties)).toEqual(pick(local));
  });

  it('When the secured setup one-shot applies its ACLs, then they are exactly the grants of the local secured stack', async () => {
    const compose = await readComposeFile();
    const { GRANTS: table = '' } = composeEnvironment(
      serviceOf(compose, 'kafka-secured-setup'),
      securedShell,
    );

    const applied = table
      .trim()
      .split('\n')
      .map((line) => {
        const [principal, operation, type, name, pattern] = line.trim().split(/\s+/);
        return { principal, operation, type, name, prefixed: pattern === 'prefixed' };
      });

    expect(sortedGrants(applied)).toEqual(
      sortedGrants(
        grantsOf((principal) => principal).map(({ patternType, ...grant }) => ({
          ...grant,
          prefixed: patternType === 'prefix',
        })),
      ),
    );
  });
});

/** Every string in a YAML document, where Compose interpolates. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(stringsOf);
}

/** The volume a compose service mounts at `path`. */
function volumeAt(service: ComposeService, path: string): string {
  const volume = service.volumes?.find((each) => each.split(':')[1] === path);
  if (volume === undefined) throw new Error(`No volume at ${path}`);
  return volume.split(':')[0] ?? '';
}

/** The server.properties the secured Kafka's entrypoint writes, as written (shell variables kept). */
function brokerProperties(service: ComposeService): Record<string, string> {
  const script = service.command?.join('\n') ?? '';
  const text = /> \/tmp\/server\.properties <<PROPERTIES\n([^]*?)\nPROPERTIES\n/.exec(script)?.[1];
  if (text === undefined) throw new Error('No server.properties in the secured Kafka command');
  return Object.fromEntries(
    text.split('\n').map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)];
    }),
  );
}
