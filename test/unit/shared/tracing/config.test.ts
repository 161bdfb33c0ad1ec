import { describe, expect, it } from 'vitest';
import { tracesProtocol, tracesSampler, tracingEndpoint } from '#shared/tracing/config.ts';

describe('Tracing configuration', () => {
  it('When no OTLP endpoint is set, then the SDK stays off', () => {
    expect(tracingEndpoint({})).toBeUndefined();
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
  });

  it('When an endpoint is set, then spans go there, the traces-only one first', () => {
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.origin).toBe(
      'http://collector:4318',
    );
    expect(
      tracingEndpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example:4318/v1/traces',
      })?.href,
    ).toBe('https://traces.example:4318/v1/traces');
  });

  it('When OTEL_SDK_DISABLED is true, then the SDK stays off whatever the endpoint', () => {
    expect(
      tracingEndpoint({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeUndefined();
  });

  it('When the endpoint is not an http(s) URL, then start-up stops naming the variable', () => {
    expect(() => tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL (got "collector:4318")',
    );
  });

  it('When no sampler is set, then spans follow their parent and every new trace is kept, as the specification says', () => {
    expect(tracesSampler({})).toEqual({ parentBased: true, ratio: 1 });
    expect(tracesSampler({ OTEL_TRACES_SAMPLER: ' ' })).toEqual({ parentBased: true, ratio: 1 });
  });

  it.for([
    ['always_on', undefined, { parentBased: false, ratio: 1 }],
    ['always_off', '0.5', { parentBased: false, ratio: 0 }],
    ['traceidratio', '0.25', { parentBased: false, ratio: 0.25 }],
    ['traceidratio', undefined, { parentBased: false, ratio: 1 }],
    ['parentbased_always_on', undefined, { parentBased: true, ratio: 1 }],
    ['parentbased_always_off', undefined, { parentBased: true, ratio: 0 }],
    ['PARENTBASED_TRACEIDRATIO', '0', { parentBased: true, ratio: 0 }],
  ] as const)(
    'When OTEL_TRACES_SAMPLER is %s with the argument %s, then that sampler is used',
    ([name, arg, choice]) => {
      const env = {
        OTEL_TRACES_SAMPLER: name,
        ...(arg === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: arg }),
      };
      expect(tracesSampler(env)).toEqual(choice);
    },
  );

  it('When the sampler is unknown or its ratio is not from 0 to 1, then start-up stops naming the variable', () => {
    expect(() => tracesSampler({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(
      'OTEL_TRACES_SAMPLER must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio (got "jaeger_remote")',
    );
    for (const arg of ['1.5', '-0.1', 'half', '0x1'])
      expect(() =>
        tracesSampler({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: arg }),
      ).toThrow(
        `OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 for a traceidratio sampler (got "${arg}")`,
      );
  });

  it('When no protocol is set, then spans go as protobuf; the traces-only variable wins over the general one', () => {
    expect(tracesProtocol({})).toBe('http/protobuf');
    expect(tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(
      tracesProtocol({
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      }),
    ).toBe('http/protobuf');
  });

  it('When the protocol is gRPC or unknown, then start-up stops naming the variable', () => {
    expect(() => tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (got "grpc": OTLP over gRPC is not supported',
    );
    expect(() => tracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/xml' })).toThrow(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf or http/json (got "http/xml")',
    );
  });
});
