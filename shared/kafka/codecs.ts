import { promisify } from 'node:util';
import { zstdCompress, zstdDecompress } from 'node:zlib';
import kafkajs from 'kafkajs';
import { compressFrame, decompressFrame } from 'lz4-napi';
import { compress as snappyCompress, uncompress as snappyUncompress } from 'snappy';

// kafkajs is CommonJS, and Node's named-export detection does not find these two.
const { CompressionCodecs, CompressionTypes } = kafkajs;

/** What kafkajs hands a codec to compress: the encoded records. */
interface Encoder {
  buffer: Buffer;
}

interface Codec {
  compress(encoder: Encoder): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/**
 * The Java client (snappy-java's SnappyOutputStream) frames snappy as xerial does: this 8-byte
 * magic, two 4-byte versions, then chunks of a 4-byte big-endian length and a raw snappy block.
 * librdkafka reads and writes the same; a batch without the magic is one raw block.
 */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER = Buffer.concat([XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])]);

async function snappyUnframe(buffer: Buffer): Promise<Buffer> {
  if (!buffer.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)) {
    return Buffer.from(await snappyUncompress(buffer));
  }
  const chunks: Promise<string | Buffer>[] = [];
  for (let at = XERIAL_HEADER.length; at < buffer.length;) {
    const length = buffer.readUInt32BE(at);
    const end = at + 4 + length;
    if (end > buffer.length) throw new RangeError('snappy: xerial chunk past the end of the batch');
    chunks.push(snappyUncompress(buffer.subarray(at + 4, end)));
    at = end;
  }
  return Buffer.concat((await Promise.all(chunks)).map((chunk) => Buffer.from(chunk)));
}

const snappy: Codec = {
  async compress({ buffer }) {
    const block = await snappyCompress(buffer);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(block.length);
    return Buffer.concat([XERIAL_HEADER, length, block]);
  },
  decompress: snappyUnframe,
};

/** Kafka's lz4 is the LZ4 frame format (KafkaLZ4BlockOutputStream since record format v1). */
const lz4: Codec = {
  compress: ({ buffer }) => compressFrame(buffer),
  decompress: (buffer) => decompressFrame(buffer),
};

/** Node's own zstd (zlib, Node ≥ 22.15): no native package, prebuilt wherever Node runs. */
const zstd: Codec = {
  compress: ({ buffer }) => promisify(zstdCompress)(buffer),
  decompress: (buffer) => promisify(zstdDecompress)(buffer),
};

/**
 * kafkajs ships gzip only, and a fetch that meets any other codec fails and crash-loops the
 * consumer (docs/decisions/0015-compression.md). Registered once, for
 * every kafkajs client in the process.
 */
export function registerKafkaCodecs(): void {
  CompressionCodecs[CompressionTypes.Snappy] = () => snappy;
  CompressionCodecs[CompressionTypes.LZ4] = () => lz4;
  CompressionCodecs[CompressionTypes.ZSTD] = () => zstd;
}
