import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiChat } from './openai-chat.ts';
import { countJsonParses, detect, sse } from './testdata/harness.ts';

const chunk = (delta: object, extra: object = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

describe('openaiChat', () => {
  it('treats role-only and empty deltas as events, not output', () => {
    const body = sse(chunk({ role: 'assistant', content: '' }), chunk({ content: null }), chunk({}));
    assert.deepEqual(detect(openaiChat, [body]), ['event', 'event', 'event']);
  });

  it('does not count a tool name without arguments as output, then counts the first arguments', () => {
    const named = {
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
    };
    const args = { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] };
    assert.deepEqual(detect(openaiChat, [sse(chunk(named), chunk(args))]), [
      'event',
      'event',
      'output tool_call',
    ]);
  });

  it('reads the legacy function_call arguments', () => {
    const body = sse(
      chunk({ function_call: { name: 'f', arguments: '' } }),
      chunk({ function_call: { arguments: '{' } }),
    );
    assert.deepEqual(detect(openaiChat, [body]), ['event', 'event', 'output tool_call']);
  });

  it('reads reasoning from reasoning_content and from reasoning', () => {
    assert.deepEqual(detect(openaiChat, [sse(chunk({ reasoning_content: 'r' }))]), [
      'event',
      'output reasoning',
    ]);
    assert.deepEqual(detect(openaiChat, [sse(chunk({ reasoning: 'r' }))]), ['event', 'output reasoning']);
  });

  it('types errors by error.type, else error.code; a bare error string is untyped', () => {
    assert.deepEqual(detect(openaiChat, [sse({ error: { type: 'server_error', code: 'x' } })]), [
      'event',
      'streamError server_error',
    ]);
    assert.deepEqual(detect(openaiChat, [sse({ error: { message: 'm', code: 'rate_limit_exceeded' } })]), [
      'event',
      'streamError rate_limit_exceeded',
    ]);
    assert.deepEqual(detect(openaiChat, [sse({ error: 'Something about the prompt' })]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('reads an SSE `event: error`, even when its data is not JSON', () => {
    assert.deepEqual(detect(openaiChat, [sse(['error', { error: { type: 'server_error' } }])]), [
      'event',
      'streamError server_error',
    ]);
    assert.deepEqual(detect(openaiChat, [sse(['error', 'upstream went away'])]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('ignores `usage: null` and reports a usage chunk', () => {
    const body = sse(
      chunk({ content: 'a' }, { usage: null }),
      { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } },
      '[DONE]',
    );
    assert.deepEqual(detect(openaiChat, [body]), [
      'event',
      'output text',
      'event',
      'usage 3 4',
      'event',
      'terminal',
    ]);
  });

  it('is terminal once, at the first [DONE]', () => {
    assert.deepEqual(detect(openaiChat, [sse('[DONE]', '[DONE]')]), ['event', 'terminal', 'event']);
  });

  it('skips a data line over the cap, still counting its event', () => {
    const body = sse(chunk({ content: 'x'.repeat(200) }), chunk({ content: 'a' }));
    assert.deepEqual(detect(openaiChat, [body], { maxLineBytes: 128 }), [
      'oversizedLine',
      'event',
      'event',
      'output text',
    ]);
  });

  it('parses no plain text chunk once text has been seen', () => {
    const texts = Array.from({ length: 50 }, (_, i) =>
      chunk({ content: ` word${i}`, reasoning_content: null }, { usage: null }),
    );
    const body = sse(chunk({ role: 'assistant', content: '' }), ...texts);
    assert.equal(
      countJsonParses(() => detect(openaiChat, [body])),
      1,
    );
  });
});
