import { describe, expect, it } from 'vitest';
import { parseResult } from '#local/load/vegeta-results.ts';

describe('vegeta results', () => {
  it('When a line is not a result, then it is refused rather than read as zeros', () => {
    expect(parseResult('vegeta: open targets.jsonl: no such file or directory')).toBeNull();
    expect(parseResult('1764000000000000000,201,soon,46,12,,,,3,POST,http://x/plants,')).toBeNull();
  });

  it('When a result line has an error with commas and quotes, then every field is read', () => {
    const line =
      '1764000000123456789,0,30000123456,46,0,"Post ""http://127.0.0.1:3000/plants"": context deadline exceeded, (Client.Timeout)",,,17,POST,http://127.0.0.1:3000/plants,';

    expect(parseResult(line)).toEqual({
      seq: 17,
      sentNs: 1_764_000_000_123_456_789n,
      latencyMs: 30_000.123456,
      code: 0,
      error: 'Post "http://127.0.0.1:3000/plants": context deadline exceeded, (Client.Timeout)',
    });
    expect(
      parseResult('1764000000000000000,201,1500000,46,12,,,,3,POST,http://x/plants,'),
    ).toMatchObject({ seq: 3, code: 201, latencyMs: 1.5, error: '' });
  });

  it('When a result carries a body and headers, then the body is decoded and Retry-After read', () => {
    const body = Buffer.from('{"error":5030,"message":"x, y"}').toString('base64');
    const headers = Buffer.from(
      'Content-Length: 31\r\nRetry-After: 1\r\nServer: test\r\n\r\n',
    ).toString('base64');
    const line = `1795874133940173884,503,1722450,2,31,503 Service Unavailable,${body},,4,POST,http://127.0.0.1:18999/plants,${headers}`;

    expect(parseResult(line)).toEqual({
      seq: 4,
      sentNs: 1_795_874_133_940_173_884n,
      latencyMs: 1.72245,
      code: 503,
      error: '503 Service Unavailable',
      body: '{"error":5030,"message":"x, y"}',
      retryAfter: '1',
    });
  });
});
