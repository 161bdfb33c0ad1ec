import { monitorEventLoopDelay } from 'node:perf_hooks';
import fp from 'fastify-plugin';
import { ApiError, RETRY_SHORTLY } from '../http/api-error.ts';
import type { HttpSettings } from '../config.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** True while the mean event-loop delay of the last sample is above the limit. */
    isUnderPressure(): boolean;
  }
}

/** Answered even when the process is overloaded: probes and scrapes must see it as it is. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/metrics']);
/** The delay monitor's resolution, taken off its mean as @fastify/under-pressure does. */
const RESOLUTION_MS = 10;

/**
 * Refuses requests with 503/5030 while the event loop lags. The sampler reads only the delay
 * histogram: @fastify/under-pressure also calls `process.memoryUsage()` at every sample, which
 * opens /proc and threw EMFILE from its timer when a flood had taken every descriptor.
 */
export const overload = fp<Pick<HttpSettings, 'maxEventLoopDelayMs' | 'eventLoopSampleMs'>>(
  (app, settings, done) => {
    const { maxEventLoopDelayMs } = settings;
    const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    let delayMs = 0;
    const sampler = setInterval(() => {
      // No sample at all means the loop was blocked for the whole interval.
      delayMs = Number.isNaN(histogram.mean)
        ? Infinity
        : Math.max(0, histogram.mean / 1e6 - RESOLUTION_MS);
      histogram.reset();
    }, settings.eventLoopSampleMs ?? 1_000).unref();
    const underPressure = () => maxEventLoopDelayMs > 0 && delayMs > maxEventLoopDelayMs;
    app.decorate('isUnderPressure', underPressure);
    app.addHook('onRequest', (request, _reply, next) => {
      // A liveness probe must not fail because the process is busy: restarting it sheds nothing.
      // A scrape must not either: an overload is when its figures matter most.
      if (!underPressure() || ALWAYS_ANSWERED.has(request.url)) {
        next();
        return;
      }
      next(
        new ApiError(
          'unavailable',
          `Overloaded: the event loop lags more than ${String(maxEventLoopDelayMs)} ms; retry shortly`,
          RETRY_SHORTLY,
        ),
      );
    });
    app.addHook('onClose', (_app, closed) => {
      clearInterval(sampler);
      histogram.disable();
      closed();
    });
    done();
  },
  { name: 'overload' },
);
