import { describe, expect, it } from 'vitest';
import { tracingEndpoint } from '../../shared/tracing-sdk.ts';

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
});
