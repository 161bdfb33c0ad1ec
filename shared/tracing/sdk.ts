import { setTimeout as sleep } from 'node:timers/promises';
import { diag, DiagLogLevel, trace, type DiagLogFunction } from '@opentelemetry/api';
import { configOrExit } from '../config.ts';
import type { Logger } from '../logger.ts';
import { tracesProtocol, tracesSampler, tracingEndpoint, type SamplerChoice } from './config.ts';

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
 * spans in batches over OTLP/HTTP, with protobuf or JSON bodies (`OTEL_EXPORTER_OTLP_PROTOCOL`),
 * sampled as `OTEL_TRACES_SAMPLER` says (`config.ts`). The exporter reads its other
 * `OTEL_EXPORTER_OTLP_*` variables (headers, timeout, certificates) itself; `OTEL_SERVICE_NAME`
 * and `OTEL_RESOURCE_ATTRIBUTES` override the resource. Otherwise none of the SDK is even loaded.
 */
export async function startTracing(serviceName: string, logger: Logger): Promise<Tracing> {
  const settings = configOrExit(() => {
    const endpoint = tracingEndpoint(process.env);
    return endpoint === undefined
      ? undefined
      : {
          endpoint,
          sampler: tracesSampler(process.env),
          protocol: tracesProtocol(process.env),
        };
  });
  if (settings === undefined) return OFF;
  const { endpoint, sampler, protocol } = settings;
  const [sdk, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
  ]);
  const { BatchSpanProcessor, TracerProvider } = sdk;
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
    sampler: samplerOf(sampler, sdk),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  trace.setGlobalTracerProvider(provider);
  logger.info({ endpoint: endpoint.origin, protocol, sampler }, 'exporting traces over OTLP/HTTP');
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

/** The SDK's sampler for `choice`: a ratio of 1 or 0 is the SDK's always-on or always-off one. */
function samplerOf(
  { parentBased, ratio }: SamplerChoice,
  sdk: typeof import('@opentelemetry/sdk-trace'),
): import('@opentelemetry/sdk-trace').Sampler {
  const root =
    ratio === 1
      ? new sdk.AlwaysOnSampler()
      : ratio === 0
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(ratio);
  return parentBased ? new sdk.ParentBasedSampler({ root }) : root;
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
