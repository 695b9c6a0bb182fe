import protobuf from 'protobufjs';

/**
 * A protobufjs reader for OTLP requests whose 64-bit counts are mostly small. protobufjs reads every
 * uint64 varint through a 64-bit intermediate object; a histogram point carries up to 2 × 160 of
 * them. A varint that ends within its first 4 bytes (a value below 2^28) is exactly what
 * protobufjs's own `uint32()` reads, so those go there and the rest to the full 64-bit path.
 * The messages themselves are still decoded by protobufjs from the schema.
 */
export class CountReader extends protobuf.BufferReader {
  override uint64(): protobuf.Long {
    const buf = this.buf;
    const pos = this.pos;
    if (
      pos + 4 <= this.len &&
      ((buf[pos] as number) < 128 ||
        (buf[pos + 1] as number) < 128 ||
        (buf[pos + 2] as number) < 128 ||
        (buf[pos + 3] as number) < 128)
    ) {
      // A number, as every 64-bit integer is in this package (see otlp-schema.ts).
      return this.uint32() as unknown as protobuf.Long;
    }
    return super.uint64();
  }
}
