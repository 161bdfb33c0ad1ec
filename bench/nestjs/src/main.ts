// `node dist/main.js gateway|writer`: the NestJS variant of `npm run bench`, configured as the
// NestJS docs show. The gateway serves POST /plants with a controller that calls
// ClientKafka.send() and awaits the reply; the writer is a Kafka microservice whose
// @MessagePattern handler stores the plant with insertOne.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { GatewayModule } from './gateway.module.js';
import { BROKERS, CREATE_TOPIC } from './settings.js';
import { WriterModule } from './writer.module.js';

const role = process.argv[2];
if (role === 'gateway') {
  const app = await NestFactory.create(GatewayModule, { logger: ['warn', 'error'] });
  // process.exit rather than the signal again, so that `node --cpu-prof` writes its profile.
  app.enableShutdownHooks(undefined, { useProcessExit: true });
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
} else if (role === 'writer') {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(WriterModule, {
    logger: ['warn', 'error'],
    transport: Transport.KAFKA,
    options: {
      client: { clientId: 'bench-nestjs-writer', brokers: BROKERS },
      consumer: { groupId: 'bench-nestjs-writers' },
      subscribe: { fromBeginning: true },
    },
  });
  // process.exit rather than the signal again, so that `node --cpu-prof` writes its profile.
  app.enableShutdownHooks(undefined, { useProcessExit: true });
  await app.listen();
  console.log(`writer listening on ${CREATE_TOPIC}`);
} else {
  console.error('usage: node dist/main.js gateway|writer');
  process.exit(2);
}
