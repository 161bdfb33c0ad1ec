import { Module } from '@nestjs/common';
import { ClientsModule, Transport } from '@nestjs/microservices';
import { logLevel, Partitioners } from 'kafkajs';
import { PLANT_STORE, PlantStoreClient } from './plant-store.client.js';

@Module({
  imports: [
    ClientsModule.register([
      {
        name: PLANT_STORE,
        transport: Transport.KAFKA,
        options: {
          client: {
            clientId: 'plant-store-nestjs-example',
            brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
            logLevel: logLevel.WARN,
          },
          // Nest appends "-client". Every instance of this service shares the group: Nest gives
          // each one its own partitions of the reply topic and asks for replies on the lowest.
          consumer: { groupId: 'plant-store-nestjs-example' },
          // A new group starts at the end of the reply topic, so a reply that arrives before the
          // first fetch would be skipped; old replies read instead are ignored (nobody waits).
          subscribe: { fromBeginning: true },
          // murmur2 on the key, like the Java client: every command for one id on one partition.
          producer: { createPartitioner: Partitioners.DefaultPartitioner },
          send: { acks: -1 },
        },
      },
    ]),
  ],
  providers: [PlantStoreClient],
})
export class PlantStoreModule {}
