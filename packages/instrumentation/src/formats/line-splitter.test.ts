import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createLineSplitter, DEFAULT_MAX_LINE_BYTES } from './line-splitter.ts';
import { byteByByte, splitAt } from './testdata/harness.ts';

function collect(chunks: Iterable<Uint8Array>, maxLineBytes?: number, flush = true): string[] {
  const seen: string[] = [];
  const splitter = createLineSplitter(
    {
      line: (buffer, start, end) => seen.push(buffer.toString('utf8', start, end)),
      oversizedLine: (head, bytes) =>
        seen.push(`<oversized ${bytes} ${JSON.stringify(head.toString('latin1'))}>`),
    },
    { maxLineBytes },
  );
  for (const chunk of chunks) splitter.feed(chunk);
  if (flush) splitter.flush();
  return seen;
}

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('createLineSplitter', () => {
  it('ends lines at LF, CRLF and CR, mixed in one stream', () => {
    assert.deepEqual(collect([bytes('a\nb\r\nc\rd\n')]), ['a', 'b', 'c', 'd']);
  });

  it('keeps empty lines: LF LF, CRLF CRLF, CR CR and LF CR are two endings each', () => {
    assert.deepEqual(collect([bytes('a\n\nb\r\n\r\nc\r\rd\n\re\n')]), [
      'a',
      '',
      'b',
      '',
      'c',
      '',
      'd',
      '',
      'e',
    ]);
  });

  it('reads a CR at the end of one chunk and an LF at the start of the next as one CRLF', () => {
    assert.deepEqual(collect([bytes('a\r'), bytes('\nb\r'), bytes('\n')]), ['a', 'b']);
  });

  it('ends the line at a chunk-final CR at once, before the next chunk arrives', () => {
    const seen: string[] = [];
    const splitter = createLineSplitter({
      line: (b, s, e) => seen.push(b.toString('utf8', s, e)),
      oversizedLine: () => {},
    });
    splitter.feed(bytes('data: x\r'));
    assert.deepEqual(seen, ['data: x']);
    splitter.feed(bytes('y\n'));
    assert.deepEqual(seen, ['data: x', 'y']);
  });

  it('does not swallow a byte after a chunk-final CR that is not an LF', () => {
    assert.deepEqual(collect([bytes('a\r'), bytes('b\n')]), ['a', 'b']);
    assert.deepEqual(collect([bytes('a\r'), bytes('\r'), bytes('\n')]), ['a', '']);
  });

  it('strips one leading UTF-8 BOM, even split across chunks, and only at the start', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const body = Buffer.concat([bom, bytes('a\n'), bom, bytes('b\n')]);
    const second = `${bom.toString('utf8')}b`;
    assert.deepEqual(collect([body]), ['a', second]);
    assert.deepEqual(collect(byteByByte(body)), ['a', second]);
    assert.deepEqual(collect([body.subarray(0, 2), body.subarray(2)]), ['a', second]);
  });

  it('keeps bytes that only looked like the start of a BOM', () => {
    const body = Buffer.from([0xef, 0xbb, 0x41, 0x0a]);
    const seen: Buffer[] = [];
    const splitter = createLineSplitter({
      line: (b, s, e) => seen.push(Buffer.from(b.subarray(s, e))),
      oversizedLine: () => {},
    });
    for (const chunk of byteByByte(body)) splitter.feed(chunk);
    assert.deepEqual(seen, [Buffer.from([0xef, 0xbb, 0x41])]);
  });

  it('hands a line on whole when a UTF-8 code point is split across chunks', () => {
    const body = bytes('tide 🌊 ü\n');
    assert.deepEqual(collect(byteByByte(body)), ['tide 🌊 ü']);
  });

  it('hands on an unterminated last line at flush, and nothing before it', () => {
    assert.deepEqual(collect([bytes('a\nb')], undefined, false), ['a']);
    assert.deepEqual(collect([bytes('a\nb')]), ['a', 'b']);
  });

  it('accepts Uint8Array chunks that are not Buffers', () => {
    const body = new TextEncoder().encode('x\ny\n');
    assert.deepEqual(collect([body.subarray(0, 3), body.subarray(3)]), ['x', 'y']);
  });

  it('skips a line over the cap, reports its first bytes and length, and reads on', () => {
    const long = `data: ${'x'.repeat(30)}`;
    const expected = ['a', `<oversized ${long.length} "data: xx">`, 'b'];
    const body = bytes(`a\n${long}\nb\n`);
    assert.deepEqual(collect([body], 16), expected);
    assert.deepEqual(collect(byteByByte(body), 16), expected);
    assert.deepEqual(collect([bytes(`a\n${long}`)], 16), ['a', `<oversized ${long.length} "data: xx">`]);
  });

  it('allows a line of exactly the cap', () => {
    assert.deepEqual(collect(byteByByte(bytes('abcd\nabcde\n')), 4), ['abcd', '<oversized 5 "abcde">']);
  });

  it('does not grow while an oversized line streams through', () => {
    const splitter = createLineSplitter({ line: () => {}, oversizedLine: () => {} }, { maxLineBytes: 1024 });
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    splitter.feed(bytes('data: '));
    globalThis.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 1024; i += 1) splitter.feed(chunk); // 64 MiB of one line
    globalThis.gc?.();
    const grown = process.memoryUsage().arrayBuffers - before;
    assert.ok(grown < 16 * 1024 * 1024, `kept ${grown} bytes`);
  });

  it('rejects a cap that is not a positive whole number of bytes, saying so', () => {
    for (const maxLineBytes of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => createLineSplitter({ line: () => {}, oversizedLine: () => {} }, { maxLineBytes }),
        /maxLineBytes must be a positive whole number of bytes/,
      );
    }
    assert.equal(DEFAULT_MAX_LINE_BYTES, 8 * 1024 * 1024);
  });

  it('gives the same lines however the stream is cut (property)', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'é', '🌊', ' ', ':'), maxLength: 12 });
    const ending = fc.constantFrom('\n', '\r\n', '\r');
    const stream = fc.array(fc.tuple(line, ending), { maxLength: 12 });
    fc.assert(
      fc.property(stream, fc.array(fc.nat(200)), (parts, offsets) => {
        const whole = parts.map(([text, end]) => text + end).join('');
        const reference = whole.split(/\r\n|\r|\n/).slice(0, -1); // every part ends with an ending
        assert.deepEqual(collect(splitAt(bytes(whole), offsets)), reference);
      }),
    );
  });
});
