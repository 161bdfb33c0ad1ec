// `node docs/examples/kafkajs/create-plant.ts <id> <name> [tag]` (Node 24): creates one plant
// through the writer and prints its reply; exits 0 on 200, 1 on 400, 2 on usage or no reply.
import { Kafka, logLevel } from 'kafkajs';
import { connectPlantStoreClient, type NewPlant } from './plant-store-client.ts';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const commandTopic = process.env.KAFKA_CREATE_TOPIC ?? 'plants.create';
const replyTopic = process.env.REPLY_TOPIC ?? 'plants.create.replies.kafkajs-example';
const timeoutMs = Number(process.env.REPLY_TIMEOUT_MS ?? 10_000);

const plant = plantFromArguments(process.argv.slice(2));
if (plant === undefined) {
  console.error('Usage: node docs/examples/kafkajs/create-plant.ts <int64 id> <name> [tag]');
  process.exit(2);
}

const kafka = new Kafka({ clientId: 'kafkajs-example', brokers, logLevel: logLevel.WARN });
await createReplyTopic(kafka, replyTopic);
const client = await connectPlantStoreClient({ kafka, commandTopic, replyTopic, timeoutMs });
try {
  const reply = await client.createPlant(plant);
  console.log(JSON.stringify(reply));
  process.exitCode = reply.status === 200 ? 0 : 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
} finally {
  await client.disconnect();
}

function plantFromArguments([id, name, tag]: string[]): NewPlant | undefined {
  if (id === undefined || !/^-?\d+$/.test(id) || name === undefined) return undefined;
  return tag === undefined ? { id: BigInt(id), name } : { id: BigInt(id), name, tag };
}

/** Local convenience: in production the reply topic is provisioned with the others. */
async function createReplyTopic(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
    }
  } finally {
    await admin.disconnect();
  }
}
