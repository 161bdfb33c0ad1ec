import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { ErrorBody } from './errors.ts';
import { Plant } from './plant.ts';

/** A writer's answer to a create command: the HTTP answer, verbatim. */
export const Reply = Type.Union([
  Type.Object({ status: Type.Literal(200), plant: Plant }),
  Type.Object({ status: Type.Literal(400), error: ErrorBody }),
]);
export type Reply = Static<typeof Reply>;

const reply = Compile(Reply);

export function encodeReply(value: Reply): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** Null when the bytes are not a reply (another producer's message on the topic). */
export function decodeReply(bytes: Buffer | null): Reply | null {
  if (bytes === null) return null;
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return reply.Check(value) ? value : null;
  } catch {
    return null;
  }
}
