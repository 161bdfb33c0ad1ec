import fastifyUnderPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import { ApiError } from '../api-error.ts';
import type { HttpSettings } from '../config.ts';

/** Answered even when the process is overloaded: probes and scrapes must see it as it is. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/metrics']);

/** Refuses requests with 503/5030 while the event loop lags, through @fastify/under-pressure. */
export const overload = fp<Pick<HttpSettings, 'maxEventLoopDelayMs' | 'eventLoopSampleMs'>>(
  async (app, settings) => {
    await app.register(fastifyUnderPressure, {
      maxEventLoopDelay: settings.maxEventLoopDelayMs,
      sampleInterval: settings.eventLoopSampleMs ?? 1_000,
      // A liveness probe must not fail because the process is busy: restarting it sheds nothing.
      // A scrape must not either: an overload is when its figures matter most.
      pressureHandler: (request) =>
        ALWAYS_ANSWERED.has(request.url)
          ? Promise.resolve()
          : Promise.reject(
              new ApiError(
                'unavailable',
                `Overloaded: the event loop lags more than ${String(settings.maxEventLoopDelayMs)} ms; retry shortly`,
                { headers: { 'retry-after': '1' } },
              ),
            ),
    });
  },
  { name: 'overload' },
);
