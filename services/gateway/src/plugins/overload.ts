import fastifyUnderPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import { ApiError } from '../api-error.ts';

export interface OverloadOptions {
  /** Mean event-loop delay above which requests are refused with 503; 0 turns the check off. */
  maxEventLoopDelayMs: number;
  /** How often that delay is sampled (1 s unless a test needs it sooner). */
  eventLoopSampleMs?: number;
}

/** Answered even when the process is overloaded: probes and scrapes must see it as it is. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/metrics']);

/** Refuses requests with 503/5030 while the event loop lags, through @fastify/under-pressure. */
export const overload = fp<OverloadOptions>(
  async (app, options) => {
    await app.register(fastifyUnderPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      sampleInterval: options.eventLoopSampleMs ?? 1_000,
      // A liveness probe must not fail because the process is busy: restarting it sheds nothing.
      // A scrape must not either: an overload is when its figures matter most.
      pressureHandler: (request) =>
        ALWAYS_ANSWERED.has(request.url)
          ? Promise.resolve()
          : Promise.reject(
              new ApiError(
                'unavailable',
                `Overloaded: the event loop lags more than ${String(options.maxEventLoopDelayMs)} ms; retry shortly`,
                { headers: { 'retry-after': '1' } },
              ),
            ),
    });
  },
  { name: 'overload' },
);
