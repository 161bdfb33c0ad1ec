import fp from 'fastify-plugin';
import { traceRequests } from '../observability/request-tracing.ts';

/** A server span for every request but probes and scrapes (`request-tracing.ts`). */
export const tracing = fp(
  (app, _options, done) => {
    traceRequests(app);
    done();
  },
  { name: 'tracing' },
);
