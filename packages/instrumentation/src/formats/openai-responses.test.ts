import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiResponses } from './openai-responses.ts';
import { countJsonParses, detect, sse } from './testdata/harness.ts';

const named = (type: string, fields: object = {}): [string, object] => [type, { type, ...fields }];

describe('openaiResponses', () => {
  it('reads the type from the data when the server sends no event names', () => {
    const body = sse(
      { type: 'response.created', response: { id: 'r' } },
      { type: 'response.output_text.delta', delta: 'Hi' },
      { type: 'response.completed', response: { usage: { input_tokens: 5, output_tokens: 1 } } },
    );
    assert.deepEqual(detect(openaiResponses, [body]), [
      'event',
      'event',
      'output text',
      'event',
      'usage 5 1',
      'terminal',
    ]);
  });

  it('does not count an empty delta as output', () => {
    const body = sse(
      named('response.output_text.delta', { delta: '' }),
      named('response.output_text.delta', { delta: 'a' }),
    );
    assert.deepEqual(detect(openaiResponses, [body]), ['event', 'event', 'output text']);
  });

  it('counts a refusal as text and a function call item without arguments as nothing yet', () => {
    const item = { type: 'function_call', name: 'f', arguments: '' };
    const body = sse(
      named('response.output_item.added', { item }),
      named('response.refusal.delta', { delta: 'No.' }),
    );
    assert.deepEqual(detect(openaiResponses, [body]), ['event', 'event', 'output text']);
  });

  it('ends at response.incomplete with its usage', () => {
    const body = sse(
      named('response.incomplete', { response: { usage: { input_tokens: 9, output_tokens: 64 } } }),
    );
    assert.deepEqual(detect(openaiResponses, [body]), ['event', 'usage 9 64', 'terminal']);
  });

  it('types an error event by code, else by a nested error', () => {
    assert.deepEqual(detect(openaiResponses, [sse(named('error', { code: 'server_error', message: 'm' }))]), [
      'event',
      'streamError server_error',
    ]);
    assert.deepEqual(
      detect(openaiResponses, [sse(named('error', { error: { type: 'invalid_request_error' } }))]),
      ['event', 'streamError invalid_request_error'],
    );
    assert.deepEqual(detect(openaiResponses, [sse(named('error', { message: 'm' }))]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('parses no text delta once text has been seen', () => {
    const deltas = Array.from({ length: 50 }, (_, i) =>
      named('response.output_text.delta', { delta: ` w${i}` }),
    );
    assert.equal(
      countJsonParses(() => detect(openaiResponses, [sse(...deltas)])),
      1,
    );
  });
});
