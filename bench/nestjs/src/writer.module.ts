import { Controller, Inject, Module, type OnModuleDestroy } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { CREATE_TOPIC, MONGODB_URI, type NewPlant, type Reply } from './settings.js';

const PLANTS = 'PLANTS';

interface StoredPlant {
  _id: number;
  name: string;
  tag?: string;
  createdAt: Date;
}

@Controller()
class PlantsHandler {
  constructor(@Inject(PLANTS) private readonly plants: Collection<StoredPlant>) {}

  @MessagePattern(CREATE_TOPIC)
  async create(@Payload() plant: NewPlant): Promise<Reply> {
    const answer = { name: plant.name, ...(plant.tag === undefined ? {} : { tag: plant.tag }) };
    try {
      await this.plants.insertOne({ _id: plant.id, ...answer, createdAt: new Date() });
      return { status: 200, plant: answer };
    } catch (error) {
      if (!(error instanceof MongoServerError) || error.code !== 11000) throw error;
    }
    const stored = await this.plants.findOne({ _id: plant.id });
    if (stored?.name === plant.name && stored.tag === plant.tag)
      return { status: 200, plant: answer };
    return {
      status: 400,
      error: { error: 4009, message: `A plant with id ${plant.id} already exists` },
    };
  }
}

class MongoConnection implements OnModuleDestroy {
  constructor(readonly client: MongoClient) {}
  onModuleDestroy(): Promise<void> {
    return this.client.close();
  }
}

@Module({
  controllers: [PlantsHandler],
  providers: [
    {
      provide: MongoConnection,
      useFactory: async () => new MongoConnection(await new MongoClient(MONGODB_URI).connect()),
    },
    {
      provide: PLANTS,
      inject: [MongoConnection],
      useFactory: (connection: MongoConnection) =>
        connection.client.db('plantstore').collection<StoredPlant>('plants_nestjs'),
    },
  ],
})
export class WriterModule {}
