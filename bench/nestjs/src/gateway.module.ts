import {
  Body,
  Controller,
  Get,
  HttpCode,
  HttpException,
  Inject,
  Injectable,
  Module,
  Post,
  UnauthorizedException,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
  type OnModuleInit,
} from '@nestjs/common';
import { ClientsModule, Transport, type ClientKafka } from '@nestjs/microservices';
import { lastValueFrom, timeout } from 'rxjs';
import {
  AUTH_TOKENS,
  BROKERS,
  CREATE_TOPIC,
  REPLY_TIMEOUT_MS,
  type NewPlant,
  type Reply,
} from './settings.js';

const WRITERS = 'WRITERS';

@Injectable()
class BearerGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: { authorization?: string } }>();
    const header = request.headers.authorization ?? '';
    if (header.startsWith('Bearer ') && AUTH_TOKENS.includes(header.slice(7))) return true;
    throw new UnauthorizedException({ error: 4010, message: 'Missing or invalid bearer token' });
  }
}

@Controller()
class PlantsController implements OnModuleInit {
  constructor(@Inject(WRITERS) private readonly writers: ClientKafka) {}

  async onModuleInit(): Promise<void> {
    this.writers.subscribeToResponseOf(CREATE_TOPIC);
    await this.writers.connect();
  }

  @Get('readyz')
  ready(): { status: string } {
    return { status: 'ready' };
  }

  @Post('plants')
  @HttpCode(200)
  @UseGuards(BearerGuard)
  async create(@Body() body: unknown): Promise<Extract<Reply, { status: 200 }>['plant']> {
    const plant = newPlantOf(body);
    if (plant === undefined) {
      throw new HttpException({ error: 4000, message: 'The body is not a NewPlant' }, 400);
    }
    const reply = await lastValueFrom(
      this.writers
        .send<Reply>(CREATE_TOPIC, { key: String(plant.id), value: plant })
        .pipe(timeout(REPLY_TIMEOUT_MS)),
    );
    if (reply.status === 400) throw new HttpException(reply.error, 400);
    return reply.plant;
  }
}

function newPlantOf(body: unknown): NewPlant | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { id, name, tag } = body as Record<string, unknown>;
  if (!Number.isSafeInteger(id) || typeof name !== 'string' || name === '') return undefined;
  if (tag !== undefined && typeof tag !== 'string') return undefined;
  return { id: id as number, name, ...(tag === undefined ? {} : { tag }) };
}

@Module({
  imports: [
    ClientsModule.register([
      {
        name: WRITERS,
        transport: Transport.KAFKA,
        options: {
          client: { clientId: 'bench-nestjs-gateway', brokers: BROKERS },
          consumer: { groupId: 'bench-nestjs-gateway' },
        },
      },
    ]),
  ],
  controllers: [PlantsController],
  providers: [BearerGuard],
})
export class GatewayModule {}
