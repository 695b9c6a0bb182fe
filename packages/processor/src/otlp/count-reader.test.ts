import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { CountReader } from './count-reader.ts';
import './otlp-schema.ts'; // 64-bit integers as numbers

describe('count reader', () => {
  it('reads uint64 varints of every length as the numbers protobufjs reads', () => {
    const values = [
      0,
      1,
      127,
      128,
      16_383,
      16_384,
      2 ** 21 - 1,
      2 ** 21,
      2 ** 28 - 1,
      2 ** 28,
      2 ** 32 + 5,
      2 ** 53 - 1,
    ];
    const writer = protobuf.Writer.create();
    for (const v of values) writer.uint64(v);
    const bytes = Buffer.from(writer.finish());
    const reader = new CountReader(bytes);
    const plain = protobuf.Reader.create(bytes);
    for (const v of values) {
      const expected = plain.uint64() as unknown as number;
      assert.equal(expected, v);
      assert.equal(reader.uint64(), v);
    }
    assert.equal(reader.pos, bytes.length);
  });

  it('fails like protobufjs on a truncated varint', () => {
    assert.throws(() => new CountReader(Buffer.from([0xff, 0xff])).uint64(), RangeError);
  });
});
