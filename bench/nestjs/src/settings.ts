export const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
export const CREATE_TOPIC = process.env.KAFKA_CREATE_TOPIC ?? 'bench.nestjs.create';
export const AUTH_TOKENS = (process.env.AUTH_TOKENS ?? '').split(',').filter(Boolean);
export const MONGODB_URI = process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017';
export const REPLY_TIMEOUT_MS = 10_000;

export interface NewPlant {
  id: number;
  name: string;
  tag?: string;
}

export type Reply =
  | { status: 200; plant: { name: string; tag?: string } }
  | { status: 400; error: { error: number; message: string } };
