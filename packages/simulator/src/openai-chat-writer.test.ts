import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { exampleScript } from './example-script.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { OPENROUTER_DIALECT, openaiChatWriter } from './openai-chat-writer.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Script, StreamScript } from './script.ts';
import { parseSse, sseJson } from './sse.test-helper.ts';

describe('openai-chat writer: bytes', () => {
  test('the example script as OpenAI sends it', () => {
    const pieces = openaiChatWriter().render(exampleScript(), GOLDEN_CONTEXT);
    assertGolden('openai-chat/example.sse', pieces.join(''));
  });

  test('OpenRouter dialect with CRLF line endings', () => {
    const writer = openaiChatWriter({ ...OPENROUTER_DIALECT, lineEnding: '\r\n' });
    const bytes = writer.render(exampleScript(), { ...GOLDEN_CONTEXT, includeUsage: false }).join('');
    assertGolden('openai-chat/openrouter-crlf.sse', bytes);
    assert.match(bytes, /^: OPENROUTER PROCESSING\r\n\r\n/m);
    assert.doesNotMatch(bytes, /[^\r]\n/, 'every line break is CRLF');
    const reasoning = sseJson(bytes).flatMap((chunk) => choiceDelta(chunk));
    assert.ok(reasoning.some((delta) => 'reasoning' in delta && !('reasoning_content' in delta)));
    assert.ok(
      sseJson(bytes).some((chunk) => chunk.usage !== null && chunk.usage !== undefined),
      'usage always',
    );
  });

  test('each piece is whole events, so each write is one or more complete SSE events', () => {
    const pieces = openaiChatWriter().render(exampleScript(), GOLDEN_CONTEXT);
    for (const piece of pieces) {
      if (piece === '') continue;
      assert.ok(piece.endsWith('\n\n'));
      assert.ok(parseSse(piece).length >= 1);
    }
  });

  test('without include_usage: no usage chunk and no usage field', () => {
    const pieces = openaiChatWriter().render(exampleScript(), { ...GOLDEN_CONTEXT, includeUsage: false });
    const usagePiece = exampleScript().pieces.findIndex((piece) => piece.kind === 'usage');
    assert.equal(pieces[usagePiece], '');
    assert.ok(sseJson(pieces.join('')).every((chunk) => !('usage' in chunk)));
  });

  test('an in-stream error is a chunk with an error object, as the SDK expects', () => {
    const script: StreamScript = {
      kind: 'stream',
      headersDelayMs: 0,
      pieces: [{ kind: 'error', delayMs: 0, errorType: 'overloaded' }],
    };
    const [chunk] = sseJson(openaiChatWriter().render(script, GOLDEN_CONTEXT).join(''));
    assert.deepEqual(Object.keys((chunk?.error ?? {}) as object), ['message', 'type', 'param', 'code']);
  });
});

describe('openai-chat writer: the official openai SDK reads it', () => {
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  let client: OpenAI;
  before(async () => {
    server = await startProviderServer({ respond: () => next });
    client = new OpenAI({ apiKey: 'sk-dummy', baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  after(() => server.close());

  test('create({ stream: true }) yields reasoning, tool-call and text deltas in order, then usage', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const stream = await client.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'weather?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const seen: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      const delta = (choice?.delta ?? {}) as Record<string, unknown> &
        OpenAI.Chat.ChatCompletionChunk.Choice.Delta;
      if (typeof delta.reasoning_content === 'string') seen.push(`reasoning:${delta.reasoning_content}`);
      for (const call of delta.tool_calls ?? []) seen.push(`args:${call.function?.arguments}`);
      if (delta.content) seen.push(`text:${delta.content}`);
      if (choice?.finish_reason) seen.push(`finish:${choice.finish_reason}`);
      if (chunk.usage) usage = chunk.usage;
    }
    assert.deepEqual(seen, [
      'reasoning:The user wants the weather.',
      'reasoning: Call the tool.',
      'args:{"city":"Pa',
      'args:ris","unit":"celsius"}',
      'text:It is ',
      'text:sunny in Paris.',
      'finish:stop',
    ]);
    assert.equal(usage?.prompt_tokens, 42);
    assert.equal(usage?.completion_tokens, 17);
    assert.equal(usage?.completion_tokens_details?.reasoning_tokens, 9);
  });

  test('the stream helper accumulates the whole message and the tool call', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const stream = client.chat.completions.stream({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: 'x' }],
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    assert.equal(message?.content, 'It is sunny in Paris.');
    const call = message?.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris', unit: 'celsius' });
  });

  test('OpenRouter comments and CRLF framing are read like the plain dialect', async () => {
    const routed = await startProviderServer({
      respond: () => exampleScript({ delayMs: 1, headersDelayMs: 1 }),
      writers: { 'openai-chat': openaiChatWriter({ ...OPENROUTER_DIALECT, lineEnding: '\r\n' }) },
    });
    try {
      const openrouter = new OpenAI({ apiKey: 'sk-dummy', baseURL: `${routed.url}/api/v1`, maxRetries: 0 });
      const stream = await openrouter.chat.completions.create({
        model: 'vendor/model',
        messages: [{ role: 'user', content: 'x' }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      assert.equal(text, 'It is sunny in Paris.');
    } finally {
      await routed.close();
    }
  });

  test('an in-stream error surfaces as an APIError from the iterator', async () => {
    next = {
      kind: 'stream',
      headersDelayMs: 1,
      pieces: [
        { kind: 'start', delayMs: 1 },
        { kind: 'text', delayMs: 1, text: 'Hel' },
        { kind: 'error', delayMs: 1, errorType: 'overloaded' },
      ],
    };
    const stream = await client.chat.completions.create({ model: 'm', messages: [], stream: true });
    const texts: string[] = [];
    await assert.rejects(
      async () => {
        for await (const chunk of stream) texts.push(chunk.choices[0]?.delta.content ?? '');
      },
      (error: unknown) => error instanceof OpenAI.APIError && /overloaded/.test(error.message),
    );
    assert.deepEqual(texts, ['', 'Hel']);
  });

  test('429 with retry-after: RateLimitError, and the SDK waits retry-after-ms before its retry', async () => {
    let calls = 0;
    const limited = await startProviderServer({
      respond: () =>
        calls++ === 0
          ? { kind: 'error', status: 429, headersDelayMs: 0, retryAfterSeconds: 0.25 }
          : exampleScript({ delayMs: 0, headersDelayMs: 0 }),
    });
    try {
      const once = new OpenAI({ apiKey: 'sk-dummy', baseURL: `${limited.url}/v1`, maxRetries: 0 });
      await assert.rejects(
        once.chat.completions.create({ model: 'm', messages: [], stream: true }),
        (error) => {
          assert.ok(error instanceof OpenAI.RateLimitError);
          assert.equal(error.headers?.get('retry-after'), '1');
          assert.equal((error.error as { code?: string }).code, 'rate_limit_exceeded');
          return true;
        },
      );
      calls = 0;
      const retrying = new OpenAI({ apiKey: 'sk-dummy', baseURL: `${limited.url}/v1`, maxRetries: 1 });
      const stream = await retrying.chat.completions.create({ model: 'm', messages: [], stream: true });
      for await (const _ of stream);
      const [first, second] = limited.sends.slice(-2);
      assert.ok(first && second);
      assert.ok(second.request.arrivedAt - first.request.arrivedAt >= 240, 'retried after about 250 ms');
      assert.equal(second.request.headers['x-stainless-retry-count'], '1');
    } finally {
      await limited.close();
    }
  });

  test('without stream: a whole chat.completion with the tool call and usage', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const completion = await client.chat.completions.create({ model: 'gpt-sim', messages: [] });
    const choice = completion.choices[0];
    assert.equal(choice?.message.content, 'It is sunny in Paris.');
    assert.equal(choice?.finish_reason, 'stop');
    const call = choice?.message.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris', unit: 'celsius' });
    assert.equal(completion.usage?.total_tokens, 59);
  });

  test('401 is an AuthenticationError', async () => {
    next = { kind: 'error', status: 401, headersDelayMs: 0 };
    await assert.rejects(
      client.chat.completions.create({ model: 'm', messages: [], stream: true }),
      OpenAI.AuthenticationError,
    );
  });
});

function choiceDelta(chunk: Record<string, unknown>): Array<Record<string, unknown>> {
  const choices = (chunk.choices ?? []) as Array<{ delta?: Record<string, unknown> }>;
  return choices.map((choice) => choice.delta ?? {});
}
