import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import { decodeEventStream, listMessages, unpadded } from './aws-event-stream.test-helper.ts';
import { bedrockInvokeWriter } from './bedrock-invoke-writer.ts';
import { exampleScript } from './example-script.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Piece, Script, StreamScript } from './script.ts';

const CHUNK_HEADERS = {
  ':event-type': 'chunk',
  ':content-type': 'application/json',
  ':message-type': 'event',
};

interface AnthropicJson {
  readonly type: string;
  readonly content_block?: { type: string };
  readonly [field: string]: unknown;
}

/** The Anthropic events a stream carries, each chunk's headers and padding checked. */
function anthropicEventsOf(bytes: Uint8Array): AnthropicJson[] {
  return decodeEventStream(bytes).map(({ headers, payload }) => {
    assert.deepEqual(headers, CHUNK_HEADERS);
    const body = unpadded(payload);
    assert.deepEqual(Object.keys(body), ['bytes']);
    return JSON.parse(Buffer.from(String(body.bytes), 'base64').toString('utf8')) as AnthropicJson;
  });
}

const streamOf = (pieces: Piece[]): StreamScript => ({ kind: 'stream', headersDelayMs: 0, pieces });

describe('bedrock-invoke writer: bytes', () => {
  test('the example script as InvokeModelWithResponseStream sends it', () => {
    const bytes = Buffer.concat(bedrockInvokeWriter().render(exampleScript(), GOLDEN_CONTEXT));
    assertGolden('bedrock-invoke/example.eventstream', bytes);
    assertGolden('bedrock-invoke/example.txt', listMessages(bytes));
  });

  test('one chunk per Messages event, in the Messages order, without ping', () => {
    const pieces = bedrockInvokeWriter().render(exampleScript(), GOLDEN_CONTEXT);
    const events = anthropicEventsOf(Buffer.concat(pieces)).map((event) =>
      event.content_block ? `${event.type}:${event.content_block.type}` : event.type,
    );
    const collapsed = events.filter((event, index) => event !== events[index - 1]);
    assert.deepEqual(collapsed, [
      'message_start',
      'content_block_start:thinking',
      'content_block_delta',
      'content_block_stop',
      'content_block_start:tool_use',
      'content_block_delta',
      'content_block_stop',
      'content_block_start:text',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    // Each piece is whole messages on its own; the heartbeat and the usage have nothing to send.
    for (const piece of pieces) decodeEventStream(piece);
    assert.deepEqual(
      pieces.map((piece) => piece.byteLength > 0),
      [true, false, true, true, true, true, true, true, true, false, true],
    );
  });

  test('the padding varies in length from message to message', () => {
    const bytes = Buffer.concat(bedrockInvokeWriter().render(exampleScript(), GOLDEN_CONTEXT));
    const lengths = decodeEventStream(bytes).map(
      ({ payload }) => String((JSON.parse(payload) as { p: string }).p).length,
    );
    assert.ok(new Set(lengths).size > lengths.length / 2, `padding lengths ${lengths}`);
  });

  test('message_stop carries the invocation metrics: the usage, and latencies from the request', () => {
    // exampleScript(): headers at 20 ms, the first piece (message_start) at 30, message_stop at 110.
    const events = anthropicEventsOf(
      Buffer.concat(bedrockInvokeWriter().render(exampleScript(), GOLDEN_CONTEXT)),
    );
    assert.deepEqual(events.at(-1), {
      type: 'message_stop',
      'amazon-bedrock-invocationMetrics': {
        inputTokenCount: 42,
        outputTokenCount: 17,
        invocationLatency: 110,
        firstByteLatency: 30,
      },
    });
    const delta = events.find((event) => event.type === 'message_delta');
    assert.deepEqual(delta?.delta, { stop_reason: 'end_turn', stop_sequence: null });
  });

  test('an in-stream error is an exception message named by the error type; nothing follows it', () => {
    const cases = [
      ['overloaded', 'serviceUnavailableException', 'Bedrock is unable to process your request.'],
      ['rate_limited', 'throttlingException', 'Too many requests, please wait before trying again.'],
      [
        'internal',
        'internalServerException',
        'The system encountered an unexpected error during processing. Try your request again.',
      ],
    ] as const;
    for (const [errorType, exception, message] of cases) {
      const pieces = bedrockInvokeWriter().render(
        streamOf([
          { kind: 'start', delayMs: 0 },
          { kind: 'error', delayMs: 0, errorType },
          { kind: 'text', delayMs: 0, text: 'after' },
          { kind: 'done', delayMs: 0 },
        ]),
        GOLDEN_CONTEXT,
      );
      assert.deepEqual(decodeEventStream(pieces[1] ?? new Uint8Array()), [
        {
          headers: {
            ':exception-type': exception,
            ':content-type': 'application/json',
            ':message-type': 'exception',
          },
          payload: JSON.stringify({ message }),
        },
      ]);
      assert.deepEqual(
        pieces.slice(2).map((piece) => piece.byteLength),
        [0, 0],
      );
    }
    const [custom] = bedrockInvokeWriter().render(
      streamOf([{ kind: 'error', delayMs: 0, errorType: 'overloaded', message: 'try later' }]),
      GOLDEN_CONTEXT,
    );
    assert.equal(decodeEventStream(custom ?? new Uint8Array())[0]?.payload, '{"message":"try later"}');
  });

  test('without streaming: the whole Messages response, with the token counts in headers', () => {
    const reply = bedrockInvokeWriter().complete(exampleScript(), GOLDEN_CONTEXT);
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['content-type'], 'application/json');
    assert.equal(reply.headers['x-amzn-bedrock-input-token-count'], '42');
    assert.equal(reply.headers['x-amzn-bedrock-output-token-count'], '17');
    assert.equal(reply.headers['x-amzn-bedrock-invocation-latency'], '110');
    assert.match(
      reply.headers['x-amzn-requestid'] ?? '',
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const message = JSON.parse(reply.body) as { type: string; content: Array<{ type: string }> };
    assert.equal(message.type, 'message');
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['thinking', 'tool_use', 'text'],
    );
  });
});

describe('bedrock-invoke: the official @anthropic-ai/bedrock-sdk reads it', () => {
  const MODEL = 'anthropic.claude-3-5-sonnet-20241022-v2:0';
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  let client: AnthropicBedrock;
  before(async () => {
    server = await startProviderServer({ respond: () => next });
    client = new AnthropicBedrock({
      baseURL: server.url,
      awsRegion: 'us-east-1',
      awsAccessKey: 'AKIAIOSFODNN7canary',
      awsSecretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYcanary',
      maxRetries: 0,
    });
  });
  after(() => server.close());

  test('messages.stream(): the final text and usage are the script’s, over a signed Bedrock request', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const message = await client.messages
      .stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'weather?' }] })
      .finalMessage();
    const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    assert.equal(text, 'It is sunny in Paris.');
    const tool = message.content.find((block) => block.type === 'tool_use');
    assert.deepEqual(tool?.type === 'tool_use' ? tool.input : undefined, { city: 'Paris', unit: 'celsius' });
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.input_tokens, 42);
    assert.equal(message.usage.output_tokens, 17);
    const request = server.sends.at(-1)?.request;
    assert.equal(request?.format, 'bedrock-invoke');
    assert.equal(request?.model, MODEL);
    assert.equal(request?.stream, true);
    assert.match(
      String(request?.headers.authorization),
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7canary\//,
    );
  });

  test('create({ stream: true }): thinking, input_json and text deltas in order', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const stream = await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'weather?' }],
      stream: true,
    });
    const seen: string[] = [];
    for await (const event of stream) {
      if (event.type !== 'content_block_delta') continue;
      const delta = event.delta;
      if (delta.type === 'thinking_delta') seen.push(`thinking:${delta.thinking}`);
      if (delta.type === 'input_json_delta') seen.push(`args:${delta.partial_json}`);
      if (delta.type === 'text_delta') seen.push(`text:${delta.text}`);
    }
    assert.deepEqual(seen, [
      'thinking:The user wants the weather.',
      'thinking: Call the tool.',
      'args:{"city":"Pa',
      'args:ris","unit":"celsius"}',
      'text:It is ',
      'text:sunny in Paris.',
    ]);
  });

  test('without stream: InvokeModel answers with the whole message', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const message = await client.messages.create({ model: MODEL, max_tokens: 64, messages: [] });
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['thinking', 'tool_use', 'text'],
    );
    assert.equal(message.usage.output_tokens, 17);
    assert.equal(server.sends.at(-1)?.request.path, `/model/${MODEL}/invoke`);
  });

  test('an in-stream exception surfaces as the SDK’s APIError of that exception type', async () => {
    next = {
      kind: 'stream',
      headersDelayMs: 1,
      pieces: [
        { kind: 'start', delayMs: 1 },
        { kind: 'text', delayMs: 1, text: 'Hel' },
        { kind: 'error', delayMs: 1, errorType: 'rate_limited', message: 'slow down' },
      ],
    };
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [] });
    await assert.rejects(stream.finalMessage(), (error: unknown) => {
      assert.ok(error instanceof AnthropicBedrock.APIError);
      assert.deepEqual(error.error, {
        type: 'error',
        error: { type: 'throttlingException', message: 'slow down' },
      });
      return true;
    });
  });

  test('429 before the stream is a RateLimitError with Bedrock’s message and x-amzn-errortype', async () => {
    next = { kind: 'error', status: 429, headersDelayMs: 0 };
    await assert.rejects(
      client.messages.create({ model: MODEL, max_tokens: 1, messages: [], stream: true }),
      (error) => {
        assert.ok(error instanceof AnthropicBedrock.RateLimitError);
        assert.deepEqual(error.error, { message: 'Too many requests, please wait before trying again.' });
        assert.match(error.headers?.get('x-amzn-errortype') ?? '', /^ThrottlingException:/);
        return true;
      },
    );
  });
});
