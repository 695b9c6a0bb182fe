import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { genericNdjson, genericSse } from './generic.ts';
import { countJsonParses, detect } from './testdata/harness.ts';

describe('genericSse', () => {
  it('counts non-empty events only, parses nothing, and has no terminal event', () => {
    const body = Buffer.from(': hi\n\nevent: ping\n\ndata:\n\ndata: [DONE]\n\ndata: {"a":1}\n\n');
    assert.equal(
      countJsonParses(() => assert.deepEqual(detect(genericSse, [body]), ['event', 'event'])),
      0,
    );
    assert.equal(genericSse.hasTerminal, false);
  });
});

describe('genericNdjson', () => {
  it('counts non-blank lines, including one skipped for its size', () => {
    const body = Buffer.from(`{"a":1}\n\n${'x'.repeat(100)}\n{"b":2}`);
    assert.deepEqual(detect(genericNdjson, [body], { maxLineBytes: 64 }), [
      'event',
      'event',
      'oversizedLine',
      'event',
    ]);
    assert.equal(genericNdjson.hasTerminal, false);
  });
});
