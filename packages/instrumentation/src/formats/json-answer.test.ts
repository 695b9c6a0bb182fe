import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { PathFamily } from '../request-identity.ts';
import { ANSWER_TAIL_BYTES, answerDetectorFor, readBedrockInvokeHeaders } from './json-answer.ts';
import type { StreamObserver } from './stream-observer.ts';

const CANARY = 'CANARY-answer-do-not-export';

/** An observer that writes down each call, so a test sees everything the detector said. */
function recorder() {
  const calls: string[] = [];
  const observer: StreamObserver = {
    event: () => calls.push('event'),
    output: (kind) => calls.push(`output ${kind}`),
    usage: (input, output) => calls.push(`usage ${input} ${output}`),
    terminal: () => calls.push('terminal'),
    streamError: (type) => calls.push(`streamError ${type}`),
    oversizedLine: () => calls.push('oversizedLine'),
  };
  return { calls, observer };
}

/** What the detector for `family` reports for `body`, fed in the pieces `cuts` splits it into. */
function read(family: PathFamily, body: string | Buffer, cuts: readonly number[] = []): string[] {
  const { calls, observer } = recorder();
  const detector = answerDetectorFor(family, 'application/json', observer);
  assert.ok(detector, family);
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
  for (let i = 0; i + 1 < points.length; i++) detector.feed(bytes.subarray(points[i], points[i + 1]));
  detector.end();
  return calls;
}

/** A long run of text, as a long answer's content would be, with escaped quotes and a canary. */
const longText = (bytes: number) =>
  `He said \\"hi\\" and wrote ${CANARY}. `
    .repeat(Math.ceil(bytes / 40))
    .slice(0, bytes)
    .replace(/\\$/, '');

/** One answer per API, as each documents it, with its counts after the content. */
function answers(text: string): Record<string, { family: PathFamily; body: object; usage: string }> {
  return {
    'OpenAI Chat Completions': {
      family: 'openai_chat',
      body: {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        model: 'gpt-test',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text,
              tool_calls: [
                {
                  id: 't1',
                  type: 'function',
                  function: { name: 'f', arguments: '{"usage":{"prompt_tokens":999}}' },
                },
              ],
            },
            finish_reason: 'stop',
          },
        ],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 34,
          total_tokens: 46,
          prompt_tokens_details: { cached_tokens: 0 },
        },
        system_fingerprint: 'fp_1',
      },
      usage: 'usage 12 34',
    },
    'OpenAI Responses': {
      family: 'openai_responses',
      body: {
        id: 'resp_1',
        object: 'response',
        output: [{ type: 'message', content: [{ type: 'output_text', text }] }],
        tools: [
          {
            type: 'function',
            name: 'f',
            parameters: { type: 'object', properties: { usage: { type: 'object' } } },
          },
        ],
        usage: { input_tokens: 21, output_tokens: 43, output_tokens_details: { reasoning_tokens: 8 } },
        user: null,
        metadata: { usage: 'a value the caller set' },
      },
      usage: 'usage 21 43',
    },
    'Anthropic Messages': {
      family: 'anthropic_messages',
      body: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'text', text },
          // A tool's input is an object here, not a string: its keys are the model's.
          {
            type: 'tool_use',
            id: 'tu_1',
            name: 'f',
            input: { usage: { input_tokens: 999, output_tokens: 999 } },
          },
        ],
        stop_reason: 'tool_use',
        usage: {
          input_tokens: 5,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 20,
          output_tokens: 67,
        },
      },
      usage: 'usage 125 67',
    },
    Gemini: {
      family: 'gemini',
      body: {
        candidates: [
          {
            content: {
              parts: [
                { text, thought: true },
                { text },
                { functionCall: { name: 'f', args: { usageMetadata: { promptTokenCount: 999 } } } },
              ],
              role: 'model',
            },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: {
          promptTokenCount: 8,
          candidatesTokenCount: 30,
          thoughtsTokenCount: 12,
          totalTokenCount: 50,
        },
        modelVersion: 'gemini-test',
      },
      usage: 'usage 8 42',
    },
    Ollama: {
      family: 'ollama',
      body: {
        model: 'qwen3:8b',
        message: { role: 'assistant', content: text, thinking: text },
        done: true,
        total_duration: 5_000_000_000,
        prompt_eval_count: 26,
        eval_count: 290,
        eval_duration: 4_000_000_000,
      },
      usage: 'usage 26 290',
    },
    Cohere: {
      family: 'cohere_chat',
      body: {
        id: 'c1',
        finish_reason: 'COMPLETE',
        message: { role: 'assistant', content: [{ type: 'text', text }] },
        usage: {
          billed_units: { input_tokens: 5, output_tokens: 9 },
          tokens: { input_tokens: 70, output_tokens: 9 },
        },
      },
      usage: 'usage 70 9',
    },
    'Bedrock Converse': {
      family: 'bedrock_converse',
      body: {
        output: {
          message: {
            role: 'assistant',
            content: [
              { text },
              { toolUse: { toolUseId: 't', name: 'f', input: { usage: { inputTokens: 999 } } } },
            ],
          },
        },
        stopReason: 'end_turn',
        usage: { inputTokens: 30, outputTokens: 11, totalTokens: 41, cacheReadInputTokens: 4 },
        metrics: { latencyMs: 1200 },
      },
      usage: 'usage 34 11',
    },
  };
}

describe('answerDetectorFor: a whole JSON answer', () => {
  for (const [api, { family, body, usage }] of Object.entries(answers(`Hello ${CANARY}`))) {
    it(`${api}: the answer's own counts, whatever the chunks, and nothing else (no event, no output)`, () => {
      const json = JSON.stringify(body, null, 1);
      fc.assert(
        fc.property(
          fc.uniqueArray(fc.integer({ min: 1, max: json.length - 1 }), { maxLength: 10 }),
          (cuts) => {
            assert.deepEqual(read(family, json, cuts), [usage]);
          },
        ),
        { numRuns: 50 },
      );
    });
  }

  for (const [api, { family, body, usage }] of Object.entries(answers(longText(3 * ANSWER_TAIL_BYTES)))) {
    it(`${api}: an answer longer than the ${ANSWER_TAIL_BYTES / 1024} KiB kept of it, its counts read from its end`, () => {
      const json = JSON.stringify(body);
      assert.ok(json.length > 2 * ANSWER_TAIL_BYTES);
      assert.deepEqual(read(family, json, [1000, 20_000, json.length - 300]), [usage]);
    });
  }

  it('Gemini’s streamGenerateContent without alt=sse, a JSON array: the last answer’s counts', () => {
    const chunk = (candidates: number) => ({
      candidates: [{ content: { parts: [{ text: CANARY }] } }],
      usageMetadata: { promptTokenCount: 8, candidatesTokenCount: candidates },
    });
    assert.deepEqual(read('gemini', JSON.stringify([chunk(1), chunk(2), chunk(3)])), ['usage 8 3']);
  });

  it('an answer without counts, cut short or not JSON reports nothing, and throws nothing', () => {
    const chat = answers(CANARY)['OpenAI Chat Completions']?.body as object;
    const json = JSON.stringify(chat);
    assert.deepEqual(read('openai_chat', json.slice(0, json.indexOf('"usage"'))), []);
    assert.deepEqual(
      read('openai_chat', json.slice(0, -20)),
      [],
      'a whole answer is read only when it parses',
    );
    assert.deepEqual(read('openai_chat', JSON.stringify({ ...chat, usage: undefined })), []);
    assert.deepEqual(read('openai_chat', `<html>${CANARY}</html>`), []);
    assert.deepEqual(read('openai_chat', Buffer.from([0xff, 0xfe, 0x00])), []);
    const long = JSON.stringify({ ...chat, usage: undefined, pad: longText(2 * ANSWER_TAIL_BYTES) });
    assert.deepEqual(read('openai_chat', long), []);
  });

  it('a long answer whose text quotes a usage object: the text is not read as one', () => {
    const text = `${longText(2 * ANSWER_TAIL_BYTES)} "usage": {"prompt_tokens": 999, "completion_tokens": 999}`;
    const body = {
      choices: [{ message: { content: text } }],
      usage: { prompt_tokens: 1, completion_tokens: 2 },
    };
    assert.deepEqual(read('openai_chat', JSON.stringify(body)), ['usage 1 2']);
    const noCounts = { choices: [{ message: { content: text } }] };
    assert.deepEqual(read('openai_chat', JSON.stringify(noCounts)), []);
  });

  it('counts that are not token counts (negative, fractional, strings) are not reported', () => {
    for (const usage of [
      { prompt_tokens: -1, completion_tokens: 'many' },
      { prompt_tokens: 1.5, completion_tokens: null },
    ]) {
      assert.deepEqual(read('openai_chat', JSON.stringify({ usage })), []);
    }
  });

  it('is made only for application/json answers of an API whose body carries counts', () => {
    const { observer } = recorder();
    assert.ok(answerDetectorFor('openai_chat', 'application/json; charset=utf-8', observer));
    assert.ok(answerDetectorFor('ollama', 'Application/JSON', observer));
    assert.equal(answerDetectorFor('openai_chat', 'text/html', observer), undefined);
    assert.equal(answerDetectorFor('openai_chat', undefined, observer), undefined);
    assert.equal(answerDetectorFor(undefined, 'application/json', observer), undefined);
    assert.equal(answerDetectorFor('bedrock_invoke', 'application/json', observer), undefined);
  });
});

describe('readBedrockInvokeHeaders: InvokeModel’s counts, for every model', () => {
  const counts = (headers: Record<string, string>) => {
    const { calls, observer } = recorder();
    readBedrockInvokeHeaders((name) => headers[name], observer);
    return calls;
  };
  it('reads the input and output token counts Bedrock sends as headers', () => {
    assert.deepEqual(
      counts({ 'x-amzn-bedrock-input-token-count': '17', 'x-amzn-bedrock-output-token-count': ' 230 ' }),
      ['usage 17 230'],
    );
    assert.deepEqual(counts({ 'x-amzn-bedrock-output-token-count': '5' }), ['usage undefined 5']);
  });
  it('reports nothing when they are absent or not counts', () => {
    assert.deepEqual(counts({}), []);
    assert.deepEqual(
      counts({ 'x-amzn-bedrock-input-token-count': '-3', 'x-amzn-bedrock-output-token-count': CANARY }),
      [],
    );
  });
});
