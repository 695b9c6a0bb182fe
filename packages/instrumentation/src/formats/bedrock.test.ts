import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bedrockConverse, bedrockInvoke } from './bedrock.ts';
import { countJsonParses, detect, type EventStreamSpec, eventStream } from './testdata/harness.ts';

const headers = (eventType: string) => ({
  ':event-type': eventType,
  ':message-type': 'event',
  ':content-type': 'application/json',
});
const chunk = (inner: object): EventStreamSpec => ({ headers: headers('chunk'), bytes: inner });
const claudeText = (text: string) =>
  chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
const converse = (eventType: string, json: object): EventStreamSpec => ({
  headers: headers(eventType),
  json,
});

describe('bedrockInvoke', () => {
  it('decodes and parses no Claude delta once text was seen', () => {
    const deltas = Array.from({ length: 50 }, (_, i) => claudeText(` w${i}`));
    const body = eventStream(...deltas, chunk({ type: 'message_stop' }));
    const base64 = Buffer.from;
    let decoded = 0;
    Buffer.from = ((value: unknown, encoding?: unknown) => {
      if (encoding === 'base64') decoded += 1;
      return (base64 as (v: unknown, e?: unknown) => Buffer)(value, encoding);
    }) as typeof Buffer.from;
    let calls: string[] = [];
    try {
      assert.equal(
        countJsonParses(() => {
          calls = detect(bedrockInvoke, [body]);
        }),
        1,
        'the first delta only',
      );
    } finally {
      Buffer.from = base64;
    }
    assert.deepEqual(calls.slice(0, 3), ['event', 'output text', 'event']);
    assert.deepEqual(calls.slice(-2), ['event', 'terminal']);
    assert.equal(decoded, 2, 'the first delta and message_stop only');
  });

  it('reads a chunk whose payload has its fields in another order, spaces, or escaped slashes', () => {
    const base64 = (stop: string) =>
      Buffer.from(
        JSON.stringify({
          type: 'message_delta',
          delta: { stop_sequence: stop },
          usage: { output_tokens: 7 },
        }),
      ).toString('base64');
    const inner = base64('?');
    assert.ok(inner.includes('/'));
    for (const raw of [
      `{"p":"abc","bytes":"${inner}"}`,
      `{ "bytes" : "${inner}" }`,
      `{"bytes":"${inner.replaceAll('/', '\\/')}"}`,
    ]) {
      assert.deepEqual(detect(bedrockInvoke, [eventStream({ headers: headers('chunk'), raw })]), [
        'event',
        'usage - 7',
      ]);
    }
  });

  it('reads Claude events written without `type` first, as any JSON writer may', () => {
    const body = eventStream(
      chunk({ index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' }, type: 'content_block_delta' }),
      chunk({ usage: { output_tokens: 5 }, type: 'message_delta', delta: {} }),
    );
    assert.deepEqual(detect(bedrockInvoke, [body]), ['event', 'output reasoning', 'event', 'usage - 5']);
  });

  it('reads the text of Titan, Mistral, text-completion and Nova payloads', () => {
    const metrics = { 'amazon-bedrock-invocationMetrics': { inputTokenCount: 3, outputTokenCount: 2 } };
    for (const first of [
      { outputText: 'Hi', index: 0, totalOutputTextTokenCount: null },
      { outputs: [{ text: 'Hi', stop_reason: null }] },
      { completion: 'Hi', stop_reason: null },
      { contentBlockDelta: { delta: { text: 'Hi' }, contentBlockIndex: 0 } },
    ]) {
      assert.deepEqual(
        detect(bedrockInvoke, [eventStream(chunk(first), chunk({ ...metrics }))]),
        ['event', 'output text', 'event', 'usage 3 2', 'terminal'],
        JSON.stringify(first),
      );
    }
    const empty = { outputText: '', outputs: [{ text: '' }], completion: '', generation: '' };
    assert.deepEqual(detect(bedrockInvoke, [eventStream(chunk(empty))]), ['event']);
  });

  it('adds cached input tokens to the invocation metrics input count', () => {
    const last = chunk({
      generation: '',
      'amazon-bedrock-invocationMetrics': {
        inputTokenCount: 10,
        outputTokenCount: 4,
        cacheReadInputTokenCount: 100,
        cacheWriteInputTokenCount: 7,
      },
    });
    assert.deepEqual(detect(bedrockInvoke, [eventStream(last)]), ['event', 'usage 117 4', 'terminal']);
  });

  it('counts messages with an empty payload or of another event type as nothing, or as events', () => {
    const body = eventStream(
      { headers: headers('chunk'), raw: '' },
      { headers: headers('initial-response'), json: {} },
      { headers: headers('chunk'), raw: '{"bytes":"bm90IGpzb24="}' }, // "not json"
    );
    assert.deepEqual(detect(bedrockInvoke, [body]), ['event', 'event']);
  });

  it('reports an error message by its error code', () => {
    const body = eventStream({
      headers: { ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'x' },
      raw: '',
    });
    assert.deepEqual(detect(bedrockInvoke, [body]), ['event', 'streamError internalfailure']);
  });
});

describe('bedrockConverse', () => {
  it('parses no text delta once text was seen, and no reasoning delta once reasoning was', () => {
    const reasoning = Array.from({ length: 20 }, (_, i) =>
      converse('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: `r${i}` } } }),
    );
    const text = Array.from({ length: 30 }, (_, i) =>
      converse('contentBlockDelta', { contentBlockIndex: 1, delta: { text: `t${i}` } }),
    );
    const body = eventStream(...reasoning, ...text, converse('messageStop', { stopReason: 'end_turn' }));
    let calls: string[] = [];
    assert.equal(
      countJsonParses(() => {
        calls = detect(bedrockConverse, [body]);
      }),
      2,
    );
    assert.deepEqual(
      calls.filter((call) => call !== 'event'),
      ['output reasoning', 'output text', 'terminal'],
    );
  });

  it('takes a tool use start for no output, and its first non-empty input for a tool call', () => {
    const body = eventStream(
      converse('contentBlockStart', {
        start: { toolUse: { toolUseId: 't1', name: 'lookup' } },
        contentBlockIndex: 0,
      }),
      converse('contentBlockDelta', { delta: { toolUse: { input: '' } }, contentBlockIndex: 0 }),
      converse('contentBlockDelta', { delta: { toolUse: { input: '{"q":1}' } }, contentBlockIndex: 0 }),
    );
    assert.deepEqual(detect(bedrockConverse, [body]), ['event', 'event', 'event', 'output tool_call']);
  });

  it('reports usage from metadata, with no input count when there is none', () => {
    const body = eventStream(converse('metadata', { usage: { outputTokens: 9 }, metrics: { latencyMs: 5 } }));
    assert.deepEqual(detect(bedrockConverse, [body]), ['event', 'usage - 9']);
  });
});
