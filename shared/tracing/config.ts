import { ConfigError } from '../config.ts';

/** Which spans are recorded and exported, as `OTEL_TRACES_SAMPLER` and `_ARG` choose. */
export interface SamplerChoice {
  /** Whether a span with a parent follows its parent's decision (the `parentbased_*` samplers). */
  parentBased: boolean;
  /** The decision for a span without a parent: the share of traces kept, from 0 to 1. */
  ratio: number;
}

/** How spans travel to the collector: OTLP/HTTP with protobuf or JSON bodies. */
export type TracesProtocol = 'http/protobuf' | 'http/json';

/** The specification's default: follow the parent, keep every new trace. */
const DEFAULT_SAMPLER = 'parentbased_always_on';
const SAMPLERS: Record<string, (arg: string | undefined) => SamplerChoice> = {
  always_on: () => ({ parentBased: false, ratio: 1 }),
  always_off: () => ({ parentBased: false, ratio: 0 }),
  traceidratio: (arg) => ({ parentBased: false, ratio: ratioOf(arg) }),
  parentbased_always_on: () => ({ parentBased: true, ratio: 1 }),
  parentbased_always_off: () => ({ parentBased: true, ratio: 0 }),
  parentbased_traceidratio: (arg) => ({ parentBased: true, ratio: ratioOf(arg) }),
};
const PROTOCOLS: readonly TracesProtocol[] = ['http/protobuf', 'http/json'];

/** Where spans go, or undefined when the SDK stays off; a URL that is not one is refused. */
export function tracingEndpoint(env: NodeJS.ProcessEnv): URL | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const value = setValue(env, name);
    if (value === undefined) continue;
    if (!/^https?:\/\//.test(value) || !URL.canParse(value)) {
      throw new ConfigError(
        `Invalid configuration: ${name} must be an http(s) URL (got "${value}")`,
      );
    }
    return new URL(value);
  }
  return undefined;
}

/**
 * The sampler `OTEL_TRACES_SAMPLER` names (`parentbased_always_on` when unset), with the ratio of
 * `OTEL_TRACES_SAMPLER_ARG` for the `traceidratio` ones (1 when unset). The specification lets an
 * SDK ignore a value it does not know; here it stops the start, so that a typo does not silently
 * keep every trace, or none.
 */
export function tracesSampler(env: NodeJS.ProcessEnv): SamplerChoice {
  const name = (setValue(env, 'OTEL_TRACES_SAMPLER') ?? DEFAULT_SAMPLER).toLowerCase();
  const sampler = SAMPLERS[name];
  if (sampler === undefined) {
    throw new ConfigError(
      `Invalid configuration: OTEL_TRACES_SAMPLER must be one of ${Object.keys(SAMPLERS).join(', ')} (got "${name}")`,
    );
  }
  return sampler(setValue(env, 'OTEL_TRACES_SAMPLER_ARG'));
}

/**
 * The protocol `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, names;
 * `http/protobuf` when neither is set, as the specification says. gRPC is not offered: the
 * services export over HTTP only.
 */
export function tracesProtocol(env: NodeJS.ProcessEnv): TracesProtocol {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const value = setValue(env, name);
    if (value === undefined) continue;
    const protocol = PROTOCOLS.find((known) => known === value);
    if (protocol === undefined) {
      throw new ConfigError(
        `Invalid configuration: ${name} must be http/protobuf or http/json (got "${value}"${value === 'grpc' ? ': OTLP over gRPC is not supported, send to the collector’s HTTP port, 4318' : ''})`,
      );
    }
    return protocol;
  }
  return 'http/protobuf';
}

function ratioOf(arg: string | undefined): number {
  if (arg === undefined) return 1;
  const ratio = Number(arg);
  if (!/^\s*[\d.eE+-]+\s*$/.test(arg) || !(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError(
      `Invalid configuration: OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 for a traceidratio sampler (got "${arg}")`,
    );
  }
  return ratio;
}

/** A variable's value, trimmed; undefined when unset or empty, which the specification equates. */
function setValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
