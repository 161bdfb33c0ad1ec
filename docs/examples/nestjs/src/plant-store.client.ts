import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { ClientKafka } from '@nestjs/microservices';
import type { Kafka } from 'kafkajs';
import { lastValueFrom, timeout } from 'rxjs';

export const PLANT_STORE = 'PLANT_STORE';
const COMMAND_TOPIC = process.env.KAFKA_CREATE_TOPIC ?? 'plants.create';
const TIMEOUT_MS = Number(process.env.REPLY_TIMEOUT_MS ?? 10_000);

/** `id` is a bigint: a JS number loses digits beyond 2^53 before it is ever sent. */
export interface NewPlant {
  id: bigint;
  name: string;
  tag?: string;
}

export type Reply =
  | { status: 200; plant: { name: string; tag?: string } }
  | { status: 400; error: { error: number; message: string } };

@Injectable()
export class PlantStoreClient implements OnModuleInit {
  private readonly kafka: ClientKafka;

  constructor(@Inject(PLANT_STORE) kafka: ClientKafka) {
    this.kafka = kafka;
  }

  async onModuleInit(): Promise<void> {
    // Nest reads replies on `<pattern>.reply`; connect() returns once the group is joined.
    this.kafka.subscribeToResponseOf(COMMAND_TOPIC);
    await this.createReplyTopic(`${COMMAND_TOPIC}.reply`);
    await this.kafka.connect();
  }

  /**
   * Resolves with the writer's reply (200 or 400). Nest adds kafka_correlationId (a random
   * string, echoed by the writer), kafka_replyTopic and kafka_replyPartition (a decimal string);
   * the observable completes because the writer's replies carry kafka_nest-is-disposed. On
   * timeout (rxjs TimeoutError) the outcome is unknown and sending the same plant again is safe.
   */
  createPlant(plant: NewPlant): Promise<Reply> {
    const command = {
      key: plant.id.toString(),
      // Text, not an object: Nest would JSON.stringify an object, which cannot write a bigint.
      value: newPlantJson(plant),
      headers: { 'content-type': 'application/json' },
    };
    return lastValueFrom(this.kafka.send<Reply>(COMMAND_TOPIC, command).pipe(timeout(TIMEOUT_MS)));
  }

  /** Local convenience: in production the reply topic is provisioned with the others. */
  private async createReplyTopic(topic: string): Promise<void> {
    const admin = (await this.kafka.createClient<Kafka>()).admin();
    await admin.connect();
    try {
      if (!(await admin.listTopics()).includes(topic)) {
        await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
      }
    } finally {
      await admin.disconnect();
    }
  }
}

export function newPlantJson({ id, name, tag }: NewPlant): string {
  const tagMember = tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`;
  return `{"id":${id.toString()},"name":${JSON.stringify(name)}${tagMember}}`;
}
