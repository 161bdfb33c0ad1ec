import { describe, expect, it } from 'vitest';
import { firstHeader, headerText, nextOffset, partitionKey } from '#shared/kafka/messages.ts';

describe('Kafka message helpers', () => {
  it('When a header was sent twice, then its first value is the one read', () => {
    expect(firstHeader([Buffer.from('a'), 'b'])).toEqual(Buffer.from('a'));
    expect(headerText({ id: ['first', 'second'] }, 'id')).toBe('first');
    expect(headerText({ id: Buffer.from('only') }, 'id')).toBe('only');
    expect(headerText({}, 'id')).toBeUndefined();
    expect(headerText(undefined, 'id')).toBeUndefined();
  });

  it('When an offset is past 2^53, then the next one keeps every digit', () => {
    expect(nextOffset('9007199254740993')).toBe('9007199254740994');
    expect(nextOffset('0')).toBe('1');
  });

  it('When topics and partitions differ, then their keys differ, even where the text would join alike', () => {
    expect(partitionKey('a1', 2)).not.toBe(partitionKey('a', 12));
    expect(partitionKey('a', 1)).toBe(partitionKey('a', 1));
  });
});
