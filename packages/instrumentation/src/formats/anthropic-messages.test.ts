import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropicMessages } from './anthropic-messages.ts';
import { countJsonParses, detect, sse } from './testdata/harness.ts';

const named = (type: string, fields: object = {}): [string, object] => [type, { type, ...fields }];
const delta = (d: object) => named('content_block_delta', { index: 0, delta: d });

describe('anthropicMessages', () => {
  it('does not count empty deltas, signatures or citations as output', () => {
    const body = sse(
      delta({ type: 'text_delta', text: '' }),
      delta({ type: 'thinking_delta', thinking: '' }),
      delta({ type: 'input_json_delta', partial_json: '' }),
      delta({ type: 'signature_delta', signature: 'EqQB' }),
      delta({ type: 'citations_delta', citation: { type: 'char_location', cited_text: 'x' } }),
    );
    assert.deepEqual(detect(anthropicMessages, [body]), ['event', 'event', 'event', 'event', 'event']);
  });

  it('reads events whose names a proxy dropped from their `type`', () => {
    const body = sse(
      { type: 'message_start', message: { usage: { input_tokens: 3, output_tokens: 1 } } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'message_stop' },
    );
    assert.deepEqual(detect(anthropicMessages, [body]), [
      'event',
      'usage 3 -',
      'event',
      'output text',
      'event',
      'terminal',
    ]);
  });

  it('reports message_delta usage with a null input count as output only', () => {
    const body = sse(named('message_delta', { usage: { input_tokens: null, output_tokens: 42 } }));
    assert.deepEqual(detect(anthropicMessages, [body]), ['event', 'usage - 42']);
  });

  it('reports an error event with unreadable data as untyped', () => {
    assert.deepEqual(detect(anthropicMessages, [sse(['error', 'Internal server error'])]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('counts ping events', () => {
    assert.deepEqual(detect(anthropicMessages, [sse(named('ping'), named('ping'))]), ['event', 'event']);
  });

  it('parses no text delta once text has been seen', () => {
    const deltas = Array.from({ length: 50 }, (_, i) => delta({ type: 'text_delta', text: ` w${i}` }));
    assert.equal(
      countJsonParses(() => detect(anthropicMessages, [sse(...deltas)])),
      1,
    );
  });
});
