import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One access line per request, written when it ends, with the request, the answer and its time
 * together, where Fastify writes two (`incoming request`, then `request completed`): the request's
 * fields are serialized and written once. Its arrival is the line's `time` less `responseTime`;
 * at `debug` it has a line of its own too, for a request that has not ended yet.
 */
export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
