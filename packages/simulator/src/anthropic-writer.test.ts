import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { anthropicWriter } from './anthropic-writer.ts';
import { exampleScript } from './example-script.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Script } from './script.ts';
import { parseSse } from './sse.test-helper.ts';

describe('anthropic writer: bytes', () => {
  test('the example script as the Messages API sends it', () => {
    const pieces = anthropicWriter().render(exampleScript(), GOLDEN_CONTEXT);
    assertGolden('anthropic/example.sse', pieces.join(''));
  });

  test('event order: message_start, blocks opened and closed in turn, message_delta, message_stop', () => {
    const events = parseSse(anthropicWriter().render(exampleScript(), GOLDEN_CONTEXT).join('')).map(
      (item) => {
        const body = JSON.parse(item.data ?? '{}') as { type: string; content_block?: { type: string } };
        assert.equal(body.type, item.event, 'the event name repeats the JSON type');
        return body.content_block ? `${body.type}:${body.content_block.type}` : body.type;
      },
    );
    const collapsed = events.filter((event, index) => event !== events[index - 1]);
    assert.deepEqual(collapsed, [
      'message_start',
      'ping',
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
  });

  test('an in-stream error is `event: error` with an overloaded_error', () => {
    const bytes = anthropicWriter()
      .render(
        {
          kind: 'stream',
          headersDelayMs: 0,
          pieces: [{ kind: 'error', delayMs: 0, errorType: 'overloaded' }],
        },
        GOLDEN_CONTEXT,
      )
      .join('');
    assert.equal(
      bytes,
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
  });
});

describe('anthropic writer: the official @anthropic-ai/sdk reads it', () => {
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  let client: Anthropic;
  before(async () => {
    server = await startProviderServer({ respond: () => next });
    client = new Anthropic({ apiKey: 'sk-ant-dummy', baseURL: server.url, maxRetries: 0 });
  });
  after(() => server.close());

  test('create({ stream: true }) yields thinking, input_json and text deltas in order', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const stream = await client.messages.create({
      model: 'claude-sim',
      max_tokens: 100,
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

  test('the stream helper accumulates the final message, tool input parsed', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const message = await client.messages
      .stream({ model: 'claude-sim', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] })
      .finalMessage();
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['thinking', 'tool_use', 'text'],
    );
    const tool = message.content[1];
    assert.ok(tool?.type === 'tool_use');
    assert.deepEqual(tool.input, { city: 'Paris', unit: 'celsius' });
    assert.equal(message.stop_reason, 'end_turn');
    assert.equal(message.usage.input_tokens, 42);
    assert.equal(message.usage.output_tokens, 17);
  });

  test('without stream: a whole message, tool input as an object', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const message = await client.messages.create({ model: 'claude-sim', max_tokens: 100, messages: [] });
    assert.deepEqual(
      message.content.map((block) => block.type),
      ['thinking', 'tool_use', 'text'],
    );
    const tool = message.content[1];
    assert.ok(tool?.type === 'tool_use');
    assert.deepEqual(tool.input, { city: 'Paris', unit: 'celsius' });
    assert.equal(message.usage.output_tokens, 17);
  });

  test('an in-stream overloaded_error surfaces as an APIError of that type', async () => {
    next = {
      kind: 'stream',
      headersDelayMs: 1,
      pieces: [
        { kind: 'start', delayMs: 1 },
        { kind: 'text', delayMs: 1, text: 'Hel' },
        { kind: 'error', delayMs: 1, errorType: 'overloaded' },
      ],
    };
    const stream = await client.messages.create({ model: 'm', max_tokens: 1, messages: [], stream: true });
    await assert.rejects(
      async () => {
        for await (const _ of stream);
      },
      (error: unknown) => {
        assert.ok(error instanceof Anthropic.APIError);
        assert.equal((error.error as { error?: { type?: string } }).error?.type, 'overloaded_error');
        return true;
      },
    );
  });

  test('429 is a RateLimitError with retry-after and a rate_limit_error body', async () => {
    next = { kind: 'error', status: 429, headersDelayMs: 0, retryAfterSeconds: 3 };
    await assert.rejects(
      client.messages.create({ model: 'm', max_tokens: 1, messages: [], stream: true }),
      (error) => {
        assert.ok(error instanceof Anthropic.RateLimitError);
        assert.equal(error.headers?.get('retry-after'), '3');
        assert.equal((error.error as { error?: { type?: string } }).error?.type, 'rate_limit_error');
        return true;
      },
    );
  });

  test('401 is an AuthenticationError', async () => {
    next = { kind: 'error', status: 401, headersDelayMs: 0 };
    await assert.rejects(
      client.messages.create({ model: 'm', max_tokens: 1, messages: [], stream: true }),
      Anthropic.AuthenticationError,
    );
  });
});
