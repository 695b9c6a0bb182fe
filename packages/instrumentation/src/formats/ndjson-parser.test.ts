import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { createNdjsonParser } from './ndjson-parser.ts';
import { byteByByte } from './testdata/harness.ts';

function records(chunks: Iterable<Uint8Array>, options?: { maxLineBytes?: number }): string[] {
  const seen: string[] = [];
  const parser = createNdjsonParser(
    {
      onRecord: (buffer, start, end) => seen.push(buffer.toString('utf8', start, end)),
      onIssue: (issue) => seen.push(`<${issue.type} ${issue.bytes}>`),
    },
    options,
  );
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return seen;
}

const text = (s: string) => Buffer.from(s, 'utf8');

describe('createNdjsonParser', () => {
  it('gives one record per non-blank line, skipping blank and whitespace-only lines', () => {
    assert.deepEqual(records([text('{"a":1}\n\n  \t\n{"b":2}\n')]), ['{"a":1}', '{"b":2}']);
  });

  it('reads LF, CRLF and CR endings and a BOM, byte by byte', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text('{"a":"é"}\r\n{"b":"🌊"}\r{"c":3}\n')]);
    assert.deepEqual(records(byteByByte(body)), ['{"a":"é"}', '{"b":"🌊"}', '{"c":3}']);
  });

  it('reads a last line without its newline when the body ends', () => {
    assert.deepEqual(records([text('{"a":1}\n{"done":true}')]), ['{"a":1}', '{"done":true}']);
  });

  it('reports a line over the cap instead of buffering it, and reads on', () => {
    assert.deepEqual(records([text(`{"a":"${'x'.repeat(40)}"}\n{"b":2}\n`)], { maxLineBytes: 16 }), [
      '<line-too-long 48>',
      '{"b":2}',
    ]);
  });
});
