import { setTimeout as sleep } from 'node:timers/promises';
import { diag, DiagLogLevel, trace, type DiagLogFunction } from '@opentelemetry/api';
import { configOrExit, ConfigError } from './config.ts';
import type { Logger } from './logger.ts';

export interface Tracing {
  /** Exports the spans still buffered (on SIGTERM, before exiting). */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { shutdown: () => Promise.resolve() };

/** How long a stopping service waits for its last spans to reach the collector. */
const SHUTDOWN_EXPORT_MS = 3_000;

/**
 * For entry points: starts the OpenTelemetry trace SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set and `OTEL_SDK_DISABLED` is not `true`, exporting
 * spans in batches over OTLP/HTTP with JSON bodies. The exporter reads its other `OTEL_EXPORTER_OTLP_*`
 * variables (headers, timeout, certificates) itself; `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` override the resource. Otherwise none of the SDK is even loaded.
 */
export async function startTracing(serviceName: string, logger: Logger): Promise<Tracing> {
  const endpoint = configOrExit(() => tracingEndpoint(process.env));
  if (endpoint === undefined) return OFF;
  const [{ BatchSpanProcessor, TracerProvider }, { OTLPTraceExporter }, resources] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  diag.setLogger(
    {
      error: logged(logger, 'error'),
      warn: logged(logger, 'warn'),
      info: logged(logger, 'info'),
      debug: logged(logger, 'debug'),
      verbose: logged(logger, 'trace'),
    },
    DiagLogLevel.WARN,
  );
  const provider = new TracerProvider({
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
      .merge(
        resources.detectResources({
          detectors: [resources.resourceAttributesEnvDetector, resources.serviceNameEnvDetector],
        }),
      ),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  trace.setGlobalTracerProvider(provider);
  logger.info({ endpoint: endpoint.origin }, 'exporting traces over OTLP/HTTP');
  return {
    // A collector that cannot take the last spans must neither fail nor hold up a clean stop.
    async shutdown() {
      const exported = provider.shutdown().then(
        () => true,
        (error: unknown) => {
          logger.warn({ err: error }, 'the last spans could not be exported');
          return true;
        },
      );
      if (!(await Promise.race([exported, sleep(SHUTDOWN_EXPORT_MS, false, { ref: false })]))) {
        logger.warn({ waitedMs: SHUTDOWN_EXPORT_MS }, 'the last spans were not exported in time');
      }
    },
  };
}

/** Where spans go, or undefined when the SDK stays off; a URL that is not one is refused. */
export function tracingEndpoint(env: NodeJS.ProcessEnv): URL | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const value = env[name]?.trim();
    if (value === undefined || value === '') continue;
    if (!/^https?:\/\//.test(value) || !URL.canParse(value)) {
      throw new ConfigError(
        `Invalid configuration: ${name} must be an http(s) URL (got "${value}")`,
      );
    }
    return new URL(value);
  }
  return undefined;
}

/** The SDK's own complaints (an unreachable collector, a refused export) as log lines. */
function logged(logger: Logger, level: 'error' | 'warn' | 'info' | 'debug' | 'trace') {
  const log: DiagLogFunction = (message, ...args) => {
    // Errors and plain values only: an object could be the exporter's options, headers included.
    const details = args.flatMap((arg) => {
      if (arg instanceof Error) return [arg.message];
      return typeof arg === 'string' || typeof arg === 'number' ? [arg] : [];
    });
    logger[level]({ otel: message, details }, 'OpenTelemetry SDK');
  };
  return log;
}
