import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { decodeEventStream, listMessages, unpadded } from './aws-event-stream.test-helper.ts';
import { bedrockConverseWriter } from './bedrock-converse-writer.ts';
import { exampleScript } from './example-script.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Piece, Script, StreamScript } from './script.ts';

/** Each message as `[event type, payload without its padding]`, its headers checked. */
function eventsOf(bytes: Uint8Array): Array<[string, Record<string, unknown>]> {
  return decodeEventStream(bytes).map(({ headers, payload }) => {
    const eventType = headers[':event-type'] ?? '';
    assert.deepEqual(headers, {
      ':event-type': eventType,
      ':content-type': 'application/json',
      ':message-type': 'event',
    });
    return [eventType, unpadded(payload)];
  });
}

const render = (script: StreamScript) => bedrockConverseWriter().render(script, GOLDEN_CONTEXT);
const streamOf = (pieces: Piece[]): StreamScript => ({ kind: 'stream', headersDelayMs: 0, pieces });

describe('bedrock-converse writer: bytes', () => {
  test('the example script as ConverseStream sends it', () => {
    const bytes = Buffer.concat(render(exampleScript()));
    assertGolden('bedrock-converse/example.eventstream', bytes);
    assertGolden('bedrock-converse/example.txt', listMessages(bytes));
  });

  test('events in order: messageStart, blocks by index (contentBlockStart only for a tool use), messageStop, metadata', () => {
    const pieces = render(exampleScript());
    assert.deepEqual(eventsOf(Buffer.concat(pieces)), [
      ['messageStart', { role: 'assistant' }],
      [
        'contentBlockDelta',
        { contentBlockIndex: 0, delta: { reasoningContent: { text: 'The user wants the weather.' } } },
      ],
      [
        'contentBlockDelta',
        { contentBlockIndex: 0, delta: { reasoningContent: { text: ' Call the tool.' } } },
      ],
      [
        'contentBlockDelta',
        { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig_golden_0' } } },
      ],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      [
        'contentBlockStart',
        { start: { toolUse: { toolUseId: 'tooluse_golden_0', name: 'get_weather' } }, contentBlockIndex: 1 },
      ],
      ['contentBlockDelta', { delta: { toolUse: { input: '{"city":"Pa' } }, contentBlockIndex: 1 }],
      [
        'contentBlockDelta',
        { delta: { toolUse: { input: 'ris","unit":"celsius"}' } }, contentBlockIndex: 1 },
      ],
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['contentBlockDelta', { contentBlockIndex: 2, delta: { text: 'It is ' } }],
      ['contentBlockDelta', { contentBlockIndex: 2, delta: { text: 'sunny in Paris.' } }],
      ['contentBlockStop', { contentBlockIndex: 2 }],
      ['messageStop', { stopReason: 'end_turn' }],
      // exampleScript(): `done` is due 110 ms after the request.
      [
        'metadata',
        { usage: { inputTokens: 42, outputTokens: 17, totalTokens: 59 }, metrics: { latencyMs: 110 } },
      ],
    ]);
    // Each piece is whole messages on its own; the heartbeat and the usage have nothing to send.
    for (const piece of pieces) decodeEventStream(piece);
    assert.deepEqual(
      pieces.map((piece) => piece.byteLength > 0),
      [true, false, true, true, true, true, true, true, true, false, true],
    );
  });

  test('the stop reason follows the finish; a stream that stops unasked ends its turn', () => {
    const stopOf = (pieces: Piece[]) =>
      eventsOf(Buffer.concat(render(streamOf(pieces)))).find(([type]) => type === 'messageStop')?.[1];
    const text: Piece = { kind: 'text', delayMs: 0, text: 'x' };
    assert.deepEqual(stopOf([text, { kind: 'finish', delayMs: 0, reason: 'length' }]), {
      stopReason: 'max_tokens',
    });
    assert.deepEqual(stopOf([text, { kind: 'finish', delayMs: 0, reason: 'tool_calls' }]), {
      stopReason: 'tool_use',
    });
    const unasked = eventsOf(Buffer.concat(render(streamOf([text, { kind: 'done', delayMs: 0 }])))).map(
      ([type]) => type,
    );
    assert.deepEqual(unasked, [
      'messageStart',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
  });

  test('an in-stream error is an exception message named by the error type; nothing follows it', () => {
    const pieces = render(
      streamOf([
        { kind: 'start', delayMs: 0 },
        { kind: 'text', delayMs: 0, text: 'Hel' },
        { kind: 'error', delayMs: 0, errorType: 'overloaded' },
        { kind: 'finish', delayMs: 0, reason: 'stop' },
        { kind: 'done', delayMs: 0 },
      ]),
    );
    assert.deepEqual(decodeEventStream(pieces[2] ?? new Uint8Array()), [
      {
        headers: {
          ':exception-type': 'serviceUnavailableException',
          ':content-type': 'application/json',
          ':message-type': 'exception',
        },
        payload: '{"message":"Bedrock is unable to process your request."}',
      },
    ]);
    assert.deepEqual(
      pieces.slice(3).map((piece) => piece.byteLength),
      [0, 0],
    );
  });

  test('without streaming: Converse’s whole output, stop reason, usage and latency', () => {
    const reply = bedrockConverseWriter().complete(exampleScript(), GOLDEN_CONTEXT);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(reply.body), {
      output: {
        message: {
          role: 'assistant',
          content: [
            {
              reasoningContent: {
                reasoningText: {
                  text: 'The user wants the weather. Call the tool.',
                  signature: 'sig_golden_0',
                },
              },
            },
            {
              toolUse: {
                toolUseId: 'tooluse_golden_0',
                name: 'get_weather',
                input: { city: 'Paris', unit: 'celsius' },
              },
            },
            { text: 'It is sunny in Paris.' },
          ],
        },
      },
      stopReason: 'end_turn',
      usage: { inputTokens: 42, outputTokens: 17, totalTokens: 59 },
      metrics: { latencyMs: 110 },
    });
  });
});

describe('bedrock-converse: the AI SDK’s @ai-sdk/amazon-bedrock reads it', () => {
  const MODEL = 'amazon.nova-pro-v1:0';
  const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  let model: ReturnType<ReturnType<typeof createAmazonBedrock>>;
  before(async () => {
    server = await startProviderServer({ respond: () => next });
    model = createAmazonBedrock({
      baseURL: server.url,
      region: 'us-east-1',
      accessKeyId: 'AKIAIOSFODNN7canary',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYcanary',
    })(MODEL);
  });
  after(() => server.close());

  async function partsOf(script: Script) {
    next = script;
    const { stream } = await model.doStream({ prompt });
    const parts = [];
    for await (const part of stream) parts.push(part);
    return parts;
  }

  test('doStream(): text, reasoning, tool input and the finish with the script’s usage', async () => {
    const parts = await partsOf(exampleScript({ delayMs: 1, headersDelayMs: 1 }));
    const joined = (type: string) =>
      parts.map((part) => (part.type === type && 'delta' in part ? part.delta : '')).join('');
    assert.equal(joined('text-delta'), 'It is sunny in Paris.');
    assert.equal(joined('reasoning-delta'), 'The user wants the weather. Call the tool.');
    assert.equal(joined('tool-input-delta'), '{"city":"Paris","unit":"celsius"}');
    const call = parts.find((part) => part.type === 'tool-call');
    assert.deepEqual(call && { name: call.toolName, input: JSON.parse(call.input) }, {
      name: 'get_weather',
      input: { city: 'Paris', unit: 'celsius' },
    });
    const finish = parts.at(-1);
    assert.ok(finish?.type === 'finish');
    assert.deepEqual(finish.finishReason, { unified: 'stop', raw: 'end_turn' });
    assert.equal(finish.usage.inputTokens.total, 42);
    assert.equal(finish.usage.outputTokens.total, 17);
    assert.equal(parts.filter((part) => part.type === 'error').length, 0);
    const request = server.sends.at(-1)?.request;
    assert.equal(request?.path, '/model/amazon.nova-pro-v1%3A0/converse-stream');
    assert.equal(request?.model, MODEL);
    assert.equal(request?.format, 'bedrock-converse');
    assert.match(
      String(request?.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7canary\//,
    );
  });

  test('an in-stream exception is an error part of that type, then the finish says error', async () => {
    const parts = await partsOf({
      kind: 'stream',
      headersDelayMs: 1,
      pieces: [
        { kind: 'start', delayMs: 1 },
        { kind: 'text', delayMs: 1, text: 'Hel' },
        { kind: 'error', delayMs: 1, errorType: 'rate_limited', message: 'slow down' },
      ],
    });
    const error = parts.find((part) => part.type === 'error')?.error as
      | { message?: string; statusCode?: number }
      | undefined;
    assert.equal(error?.message, 'slow down');
    assert.equal(error?.statusCode, 429);
    const finish = parts.at(-1);
    assert.equal(finish?.type === 'finish' ? finish.finishReason.unified : undefined, 'error');
  });

  test('doGenerate(): Converse answers whole', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const result = await model.doGenerate({ prompt });
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    assert.equal(text, 'It is sunny in Paris.');
    assert.equal(result.usage.outputTokens.total, 17);
    assert.equal(server.sends.at(-1)?.request.path, '/model/amazon.nova-pro-v1%3A0/converse');
  });

  test('429 before the stream is an API call error with Bedrock’s message', async () => {
    next = { kind: 'error', status: 429, headersDelayMs: 0 };
    await assert.rejects(
      async () => model.doStream({ prompt }),
      (error: { statusCode?: number; message?: string }) => {
        assert.equal(error.statusCode, 429);
        assert.equal(error.message, 'Too many requests, please wait before trying again.');
        return true;
      },
    );
  });
});
