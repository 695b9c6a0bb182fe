import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cohereChat, cohereChatLines } from './cohere-chat.ts';
import { selectFormat } from './index.ts';
import { countJsonParses, detect, ndjson, sse } from './testdata/harness.ts';

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

describe('cohereChat as JSON lines', () => {
  const v1 = (event_type: string, fields: object = {}) => ({ is_finished: false, event_type, ...fields });

  it('is chosen for v1 and for v2 sent as NDJSON, the SSE detector for v2 and for v1 on Cohere over SSE', () => {
    assert.equal(selectFormat('/v1/chat', 'application/stream+json'), cohereChatLines);
    assert.equal(selectFormat('/v2/chat', 'application/x-ndjson'), cohereChatLines);
    assert.equal(selectFormat('/v2/chat', 'text/event-stream'), cohereChat);
    // v1 streams SSE when asked for it; `/v1/chat` SSE elsewhere is some other chat server's.
    assert.equal(selectFormat('/v1/chat', 'text/event-stream', 'cohere_chat'), cohereChat);
    assert.equal(selectFormat('/v1/chat', 'text/event-stream')?.name, 'sse', 'not on another host');
    assert.equal(selectFormat('/v1/chat', 'application/json', 'cohere_chat'), undefined, 'a whole answer');
  });

  it('v1: text, the tool plan as reasoning, tool-call parameters, and stream-end with its tokens', () => {
    const body = ndjson(
      v1('stream-start', { generation_id: 'g' }),
      v1('tool-calls-chunk', { tool_call_delta: { index: 0, text: 'I will look.' } }),
      v1('tool-calls-chunk', { tool_call_delta: { index: 0, name: 'lookup' } }),
      v1('tool-calls-chunk', { tool_call_delta: { index: 0, parameters: '{"q":' } }),
      v1('text-generation', { text: 'Found it.' }),
      {
        is_finished: true,
        event_type: 'stream-end',
        finish_reason: 'COMPLETE',
        response: {
          meta: {
            billed_units: { input_tokens: 3, output_tokens: 5 },
            tokens: { input_tokens: 70, output_tokens: 5 },
          },
        },
      },
    );
    assert.deepEqual(detect(cohereChatLines, [body]), [
      'event',
      'event',
      'output reasoning',
      'event',
      'event',
      'output tool_call',
      'event',
      'output text',
      'event',
      'usage 70 5',
      'terminal',
    ]);
  });

  it('v1: whole tool calls count as a tool call; an ERROR_TOXIC finish is an error of that type', () => {
    const body = ndjson(
      v1('tool-calls-generation', { text: '', tool_calls: [{ name: 'lookup', parameters: {} }] }),
      { is_finished: true, event_type: 'stream-end', finish_reason: 'ERROR_TOXIC', response: {} },
    );
    assert.deepEqual(detect(cohereChatLines, [body]), [
      'event',
      'output tool_call',
      'event',
      'streamError error_toxic',
      'terminal',
    ]);
  });

  it('after the first text, parses only the line that ends the stream', () => {
    const body = ndjson(
      v1('text-generation', { text: 'a' }),
      ...Array.from({ length: 20 }, () => v1('text-generation', { text: 'more' })),
      { is_finished: true, event_type: 'stream-end', finish_reason: 'COMPLETE', response: {} },
    );
    assert.equal(
      countJsonParses(() => detect(cohereChatLines, [body])),
      2,
    );
  });

  it('v2 objects one per line are read as over SSE', () => {
    const body = ndjson(
      { type: 'content-delta', index: 0, delta: { message: { content: { thinking: 'hm' } } } },
      { type: 'content-delta', index: 0, delta: { message: { content: { text: 'Hi' } } } },
      { type: 'message-end', delta: { finish_reason: 'TIMEOUT' } },
    );
    assert.deepEqual(detect(cohereChatLines, [body]), [
      'event',
      'output reasoning',
      'event',
      'output text',
      'event',
      'streamError timeout',
      'terminal',
    ]);
  });
});
