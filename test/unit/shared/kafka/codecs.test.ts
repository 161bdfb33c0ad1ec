import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import { compressSync } from 'snappy';
import { describe, expect, it } from 'vitest';
import { registerKafkaCodecs } from '#shared/kafka/codecs.ts';

registerKafkaCodecs();

interface Codec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}
const codecOf = (type: Exclude<CompressionTypes, CompressionTypes.None>) =>
  (CompressionCodecs[type] as () => Codec)();
const records = Buffer.from('{"id": 1, "name": "Monstera"}'.repeat(5_000));
/** A buffer as text of one character a byte: toEqual compares buffers this long in 0.3 s. */
const bytesOf = (buffer: Buffer) => buffer.toString('latin1');

describe('Kafka codecs', () => {
  it.each([CompressionTypes.Snappy, CompressionTypes.LZ4, CompressionTypes.ZSTD] as const)(
    'When records are compressed with codec %i, then they decompress to the same bytes',
    async (type) => {
      const codec = codecOf(type);

      const compressed = await codec.compress({ buffer: records });

      expect(compressed.length).toBeLessThan(records.length / 10);
      expect(bytesOf(await codec.decompress(compressed))).toBe(bytesOf(records));
    },
  );

  it('When a snappy batch is one raw block without xerial framing, then it decompresses too', async () => {
    const codec = codecOf(CompressionTypes.Snappy);

    expect(bytesOf(await codec.decompress(compressSync(records)))).toBe(bytesOf(records));
  });

  it('When a xerial chunk claims more bytes than the batch holds, then decompression fails instead of reading past it', async () => {
    const codec = codecOf(CompressionTypes.Snappy);
    const framed = await codec.compress({ buffer: records });

    await expect(codec.decompress(framed.subarray(0, framed.length - 10))).rejects.toThrow(
      /past the end/,
    );
  });
});
