import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cohereChat } from './cohere-chat.ts';
import { countJsonParses, detect, sse } from './testdata/harness.ts';

const named = (type: string, fields: object = {}): [string, object] => [type, { type, ...fields }];
const content = (body: object) => named('content-delta', { index: 0, delta: { message: { content: body } } });
const toolCall = (type: 'tool-call-start' | 'tool-call-delta', fn: object) =>
  named(type, { index: 0, delta: { message: { tool_calls: { function: fn } } } });
const end = (delta: object) => named('message-end', { delta });

describe('cohereChat', () => {
  it('reads the type from the data when the server sends no event names', () => {
    const body = sse(
      { type: 'message-start', id: 'm', delta: { message: { role: 'assistant' } } },
      { type: 'content-delta', index: 0, delta: { message: { content: { text: 'Hi' } } } },
      {
        type: 'message-end',
        delta: { finish_reason: 'COMPLETE', usage: { tokens: { input_tokens: 5, output_tokens: 1 } } },
      },
    );
    assert.deepEqual(detect(cohereChat, [body]), [
      'event',
      'event',
      'output text',
      'event',
      'usage 5 1',
      'terminal',
    ]);
  });

  it('counts no empty delta as output: not an empty text, thinking, tool plan or arguments', () => {
    const body = sse(
      named('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } }),
      content({ text: '' }),
      content({ thinking: '' }),
      named('tool-plan-delta', { delta: { message: { tool_plan: '' } } }),
      toolCall('tool-call-start', { name: 'lookup', arguments: '' }),
      toolCall('tool-call-delta', { arguments: '' }),
    );
    assert.deepEqual(detect(cohereChat, [body]), Array(6).fill('event'));
  });

  it('counts thinking and the tool plan as reasoning, arguments as a tool call, before the text', () => {
    const plan = sse(named('tool-plan-delta', { delta: { message: { tool_plan: 'I will look it up.' } } }));
    assert.deepEqual(detect(cohereChat, [plan]), ['event', 'output reasoning']);
    const body = sse(
      content({ thinking: 'hm' }),
      toolCall('tool-call-start', { name: 'lookup', arguments: '{"q":' }),
      content({ text: 'Done.' }),
    );
    assert.deepEqual(detect(cohereChat, [body]), [
      'event',
      'output reasoning',
      'event',
      'output tool_call',
      'event',
      'output text',
    ]);
  });

  it('parses no content event after the first text, only message-end', () => {
    const events = [content({ text: 'a' }), ...Array.from({ length: 20 }, () => content({ text: 'more' }))];
    const body = sse(...events, end({ finish_reason: 'COMPLETE' }));
    assert.equal(
      countJsonParses(() => detect(cohereChat, [body])),
      2,
    );
  });

  it('takes the usage from tokens, else from billed_units', () => {
    const both = {
      billed_units: { input_tokens: 3, output_tokens: 9 },
      tokens: { input_tokens: 69, output_tokens: 9 },
    };
    assert.deepEqual(detect(cohereChat, [sse(end({ finish_reason: 'COMPLETE', usage: both }))]), [
      'event',
      'usage 69 9',
      'terminal',
    ]);
    const billed = { billed_units: { input_tokens: 3, output_tokens: 9 } };
    assert.deepEqual(detect(cohereChat, [sse(end({ finish_reason: 'MAX_TOKENS', usage: billed }))]), [
      'event',
      'usage 3 9',
      'terminal',
    ]);
  });

  it('a message that ends in ERROR or TIMEOUT is a stream error of that type, its text unread', () => {
    for (const [reason, type] of [
      ['ERROR', 'error'],
      ['TIMEOUT', 'timeout'],
    ]) {
      assert.deepEqual(detect(cohereChat, [sse(end({ finish_reason: reason, error: 'CANARY text' }))]), [
        'event',
        `streamError ${type}`,
        'terminal',
      ]);
    }
    for (const reason of ['COMPLETE', 'STOP_SEQUENCE', 'MAX_TOKENS', 'TOOL_CALL']) {
      assert.deepEqual(
        detect(cohereChat, [sse(end({ finish_reason: reason }))]),
        ['event', 'terminal'],
        reason,
      );
    }
  });

  it('types an error event by its code or nested type, untyped without', () => {
    assert.deepEqual(detect(cohereChat, [sse(named('error', { code: 'too_many_tokens', message: 'm' }))]), [
      'event',
      'streamError too_many_tokens',
    ]);
    assert.deepEqual(detect(cohereChat, [sse(named('error', { message: 'm' }))]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('a body that stops before message-end has no terminal event', () => {
    assert.equal(cohereChat.hasTerminal, true);
    const calls = detect(cohereChat, [sse(content({ text: 'cut' }), named('content-end', { index: 0 }))]);
    assert.deepEqual(calls, ['event', 'output text', 'event']);
  });
});
