import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Partitioners, type Kafka } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ensureCertificates, type Certificates } from '#local/provision/certificates.ts';
import { GATEWAY_MAIN, WRITER_MAIN } from '#local/process/node-service.ts';
import { DLQ_READER_GROUP_PREFIX, GATEWAY_GROUP_PREFIX, TOPICS } from '#shared/contracts/kafka.ts';
import { postPlant } from '../support/clients/http-client.ts';
import {
  clientAs,
  createTopicAsAdmin,
  logOf,
  principalEnv,
  readRefusal,
  securedStack,
  runAs,
  securedUnavailable,
  uniquePlant,
} from '../support/servers/secured.ts';

let otherCa: Certificates;
const unique = () => randomBytes(6).toString('hex');

async function connectRefusal(kafka: Kafka): Promise<Error> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } catch (error) {
    return error as Error;
  } finally {
    await admin.disconnect();
  }
  throw new Error('the broker let the client in');
}

async function writeRefusal(kafka: Kafka, topic: string): Promise<Error> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    await producer.send({ topic, messages: [{ value: 'not allowed' }] });
  } catch (error) {
    return error as Error;
  } finally {
    await producer.disconnect();
  }
  throw new Error(`the broker let the client write to ${topic}`);
}

/** The lines the broker logs from now on, once one matches `pattern`. */
function brokerLogsFromNow(): (pattern: RegExp) => Promise<string> {
  const file = join(securedStack().logDir, 'kafka.log');
  const from = logOf(file).length;
  return async (pattern) => {
    for (let waited = 0; waited < 10_000; waited += 200) {
      const lines = logOf(file).slice(from).split('\n');
      const line = lines.find((each) => pattern.test(each));
      if (line !== undefined) return line;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`the broker logged nothing matching ${String(pattern)}`);
  };
}

async function gatewayStillAnswers(): Promise<void> {
  const plant = uniquePlant('Still answered');
  expect(await postPlant(securedStack().gatewayUrl, plant.body)).toMatchObject({ status: 200 });
}

interface Refusal {
  case: string;
  attempt: () => Promise<Error>;
  clientSees: RegExp;
  /** Null where the client is the one refusing: the broker logs nothing at INFO then. */
  brokerLogs: RegExp | null;
}

const refusals: Refusal[] = [
  {
    case: 'a client without credentials',
    attempt: async () =>
      connectRefusal(
        await clientAs('gateway', {
          KAFKA_SASL_MECHANISM: '',
          KAFKA_SASL_USERNAME: '',
          KAFKA_SASL_PASSWORD: '',
        }),
      ),
    clientSees: /Closed connection/,
    brokerLogs: /Unexpected Kafka request of type \w+ during SASL handshake/,
  },
  {
    case: 'a wrong password',
    attempt: async () =>
      connectRefusal(await clientAs('gateway', { KAFKA_SASL_PASSWORD: 'not-the-password' })),
    clientSees: /SASL SCRAM SHA512 authentication failed: .*invalid credentials/,
    brokerLogs: /Failed authentication .*invalid credentials with SASL mechanism SCRAM-SHA-512/,
  },
  {
    case: "trusting another CA than the broker's",
    attempt: async () =>
      connectRefusal(await clientAs('gateway', { KAFKA_SSL_CA_FILE: otherCa.caFile })),
    clientSees: /unable to verify the first certificate/,
    brokerLogs: null,
  },
  {
    case: 'presenting a client certificate from another CA',
    attempt: async () =>
      connectRefusal(
        await clientAs('gateway', {
          KAFKA_SSL_CERT_FILE: otherCa.serverCertFile,
          KAFKA_SSL_KEY_FILE: otherCa.serverKeyFile,
        }),
      ),
    clientSees: /ssl\/tls alert certificate unknown/,
    brokerLogs: /Failed authentication .*SSL handshake failed/,
  },
  {
    case: "the gateway's principal reading the commands",
    attempt: async () =>
      readRefusal(await clientAs('gateway'), TOPICS.create, `${GATEWAY_GROUP_PREFIX}${unique()}`),
    clientSees: /Not authorized to access topics|Topic authorization failed/,
    brokerLogs: /User:gateway is Denied operation = READ .*Topic:LITERAL:plants\.create /,
  },
  {
    case: "the gateway's principal writing the DLQ",
    attempt: async () => writeRefusal(await clientAs('gateway'), TOPICS.dlq),
    clientSees: /Not authorized to access topics/,
    brokerLogs: /User:gateway is Denied operation = \w+ .*Topic:LITERAL:plants\.create\.dlq /,
  },
  {
    case: "the producer principal reading the gateway's replies",
    attempt: async () =>
      readRefusal(await clientAs('producer'), TOPICS.replies, `producer.${unique()}`),
    clientSees: /Not authorized to access topics|Topic authorization failed/,
    brokerLogs: /User:producer is Denied operation = \w+ .*Topic:LITERAL:plants\.create\.replies /,
  },
  {
    case: "the producer principal reading another producer's reply topic",
    attempt: async () => {
      const topic = `${TOPICS.replies}.another-producer.${unique()}`;
      await createTopicAsAdmin(topic);
      return readRefusal(await clientAs('producer'), topic, `producer.${unique()}`);
    },
    clientSees: /Not authorized to access topics|Topic authorization failed/,
    brokerLogs:
      /User:producer is Denied operation = \w+ .*Topic:LITERAL:plants\.create\.replies\.another-producer\./,
  },
  {
    case: 'the dlq principal reading the commands',
    attempt: async () =>
      readRefusal(await clientAs('dlq'), TOPICS.create, `${DLQ_READER_GROUP_PREFIX}${unique()}`),
    clientSees: /Not authorized to access topics|Topic authorization failed/,
    brokerLogs: /User:dlq is Denied operation = READ .*Topic:LITERAL:plants\.create /,
  },
];

describe.skipIf(securedUnavailable)('Refusals on a secured stack', () => {
  beforeAll(async () => {
    const dir = join(securedStack().dir, `other-ca-${unique()}`);
    otherCa = await ensureCertificates(dir, join(dir, 'openssl.log'), 'another CA');
  });

  it.each(refusals)(
    'When $case, then the connection is refused, the broker logs why, and the gateway still answers',
    async ({ attempt, clientSees, brokerLogs }) => {
      const logged = brokerLogsFromNow();

      const error = await attempt();

      expect(error.message).toMatch(clientSees);
      if (brokerLogs !== null) expect(await logged(brokerLogs)).toMatch(brokerLogs);
      await gatewayStillAnswers();
    },
  );

  it('When the gateway starts with a wrong password, then it exits at once naming the setting and never the password', async () => {
    const started = await runAs('gateway', GATEWAY_MAIN, [], {
      KAFKA_SASL_PASSWORD: 'wrong-password-123',
    });

    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      'Invalid configuration: Kafka refused the credentials of KAFKA_SASL_USERNAME "gateway": check KAFKA_SASL_PASSWORD',
    );
    expect(started.stderr).not.toContain('wrong-password-123');
  });

  it('When the writer starts with a wrong store password, then it exits at once naming MONGODB_URI and never the password', async () => {
    const { MONGODB_URI: uri = '' } = await principalEnv('writer');
    const wrong = uri.replace(/:[^:@/]+@/, ':wrong-store-password@');

    const started = await runAs('writer', WRITER_MAIN, [], { MONGODB_URI: wrong });

    expect(wrong).not.toBe(uri);
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      'Invalid configuration: the store refused the credentials in MONGODB_URI (Authentication failed.)',
    );
    expect(started.stderr).not.toContain('wrong-store-password');
  });

  it('When the writer starts trusting another CA for the store, then it exits naming MONGODB_TLS_CA_FILE', async () => {
    const started = await runAs('writer', WRITER_MAIN, [], { MONGODB_TLS_CA_FILE: otherCa.caFile });

    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      "Invalid configuration: the store's certificate is not trusted: check MONGODB_TLS_CA_FILE",
    );
  });

  it('When a client reaches the store over TLS without the credentials, then every command but the handshake is refused', async () => {
    const env = await principalEnv('writer');
    const anonymous = new MongoClient((env.MONGODB_URI ?? '').replace(/\/\/[^@/]+@/, '//'), {
      tls: true,
      tlsCAFile: env.MONGODB_TLS_CA_FILE ?? '',
    });
    onTestFinished(() => anonymous.close());

    await expect(anonymous.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    await expect(anonymous.db('plantstore').collection('plants').findOne({})).rejects.toMatchObject(
      { codeName: 'Unauthorized' },
    );
  });

  it('When the writer starts trusting another CA, then it exits at once naming KAFKA_SSL_CA_FILE', async () => {
    const started = await runAs('writer', WRITER_MAIN, [], {
      KAFKA_SSL_CA_FILE: otherCa.caFile,
    });

    expect(started.code).toBe(1);
    expect(started.stderr).toContain(
      "Invalid configuration: the broker's certificate is not trusted: check KAFKA_SSL_CA_FILE",
    );
  });
});
