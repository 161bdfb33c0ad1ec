import { describe, expect, it } from 'vitest';
import { parseResult } from '#bench/open-loop/vegeta.ts';

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
});
