import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Cohere, CohereClient, CohereClientV2 } from 'cohere-ai';
import { cohereV1Writer, cohereWriter } from './cohere-writer.ts';
import { exampleScript } from './example-script.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Script } from './script.ts';
import { parseSse } from './sse.test-helper.ts';

describe('cohere writer: bytes', () => {
  test('the example script as Cohere’s /v2/chat sends it', () => {
    const pieces = cohereWriter().render(exampleScript(), GOLDEN_CONTEXT);
    assertGolden('cohere/example.sse', pieces.join(''));
  });

  test('event order: message-start, each block opened and closed in turn, message-end last', () => {
    const events = parseSse(cohereWriter().render(exampleScript(), GOLDEN_CONTEXT).join('')).map((item) => {
      const body = JSON.parse(item.data ?? '{}') as {
        type: string;
        delta?: { message?: { content?: { type?: string } } };
      };
      assert.equal(body.type, item.event, 'the event name repeats the JSON type');
      const block = body.type === 'content-start' ? body.delta?.message?.content?.type : undefined;
      return block === undefined ? body.type : `${body.type}:${block}`;
    });
    const collapsed = events.filter((event, index) => event !== events[index - 1]);
    assert.deepEqual(collapsed, [
      'message-start',
      'content-start:thinking',
      'content-delta',
      'content-end',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'content-start:text',
      'content-delta',
      'content-end',
      'message-end',
    ]);
  });

  test('the usage and the finish reason travel in message-end; nothing follows it', () => {
    const pieces = cohereWriter().render(exampleScript(), GOLDEN_CONTEXT);
    const finish = exampleScript().pieces.findIndex((piece) => piece.kind === 'finish');
    const [end] = parseSse(pieces[finish] ?? '').slice(-1);
    assert.deepEqual(JSON.parse(end?.data ?? '{}'), {
      type: 'message-end',
      delta: {
        finish_reason: 'COMPLETE',
        usage: {
          billed_units: { input_tokens: 42, output_tokens: 17 },
          tokens: { input_tokens: 42, output_tokens: 17 },
        },
      },
    });
    assert.deepEqual(pieces.slice(finish + 1), ['', ''], 'usage and done write nothing more');
  });

  test('an in-stream error ends the message with finish_reason ERROR and the error’s text', () => {
    const bytes = cohereWriter()
      .render(
        {
          kind: 'stream',
          headersDelayMs: 0,
          pieces: [
            { kind: 'text', delayMs: 0, text: 'Hel' },
            { kind: 'error', delayMs: 0, errorType: 'internal', message: 'boom' },
          ],
        },
        GOLDEN_CONTEXT,
      )
      .join('');
    const [last] = parseSse(bytes).slice(-1);
    assert.equal(last?.event, 'message-end');
    const delta = (JSON.parse(last?.data ?? '{}') as { delta: { finish_reason: string; error: string } })
      .delta;
    assert.equal(delta.finish_reason, 'ERROR');
    assert.equal(delta.error, 'boom');
  });
});

describe('cohere writer: the official cohere-ai client reads it', () => {
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  let client: CohereClientV2;
  const messages = [{ role: 'user' as const, content: 'weather?' }];
  before(async () => {
    server = await startProviderServer({ respond: () => next });
    client = new CohereClientV2({ token: 'co-dummy', baseUrl: server.url, maxRetries: 0 });
  });
  after(() => server.close());

  test('chatStream yields thinking, tool-call arguments and text in order, then the usage', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const seen: string[] = [];
    let usage: Cohere.Usage | undefined;
    for await (const event of await client.chatStream({ model: 'command-sim', messages })) {
      if (event.type === 'content-delta') {
        const content = event.delta?.message?.content;
        if (content?.thinking) seen.push(`thinking:${content.thinking}`);
        if (content?.text) seen.push(`text:${content.text}`);
      }
      if (event.type === 'tool-call-start')
        seen.push(`call:${event.delta?.message?.toolCalls?.function?.name}`);
      if (event.type === 'tool-call-delta') {
        seen.push(`args:${event.delta?.message?.toolCalls?.function?.arguments}`);
      }
      if (event.type === 'message-end') usage = event.delta?.usage;
    }
    assert.deepEqual(seen, [
      'thinking:The user wants the weather.',
      'thinking: Call the tool.',
      'call:get_weather',
      'args:{"city":"Pa',
      'args:ris","unit":"celsius"}',
      'text:It is ',
      'text:sunny in Paris.',
    ]);
    assert.deepEqual(usage?.tokens, { inputTokens: 42, outputTokens: 17 });
  });

  test('without stream: one whole response, its tool call’s arguments joined', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const response = await client.chat({ model: 'command-sim', messages });
    assert.equal(response.finishReason, 'COMPLETE');
    assert.deepEqual(
      response.message.content?.map((block) => block.type),
      ['thinking', 'text'],
    );
    const [call] = response.message.toolCalls ?? [];
    assert.deepEqual(JSON.parse(call?.function?.arguments ?? ''), { city: 'Paris', unit: 'celsius' });
    assert.equal(response.usage?.tokens?.outputTokens, 17);
  });

  test('429 is a TooManyRequestsError with retry-after', async () => {
    next = { kind: 'error', status: 429, headersDelayMs: 0, retryAfterSeconds: 3 };
    await assert.rejects(client.chatStream({ model: 'command-sim', messages }), (error: unknown) => {
      assert.ok(error instanceof Cohere.TooManyRequestsError, String(error));
      assert.equal(error.statusCode, 429);
      assert.equal(error.rawResponse?.headers.get('retry-after'), '3');
      return true;
    });
  });
});

describe('cohere v1 writer', () => {
  const lines = (pieces: string[]) =>
    pieces
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { event_type: string; is_finished: boolean });

  test('the example script as Cohere’s /v1/chat sends it', () => {
    assertGolden(
      'cohere-v1/example.ndjson',
      cohereV1Writer().render(exampleScript(), GOLDEN_CONTEXT).join(''),
    );
  });

  test('one JSON line per event: the plan and the parameters as tool-calls-chunk, whole calls before stream-end', () => {
    const events = lines(cohereV1Writer().render(exampleScript(), GOLDEN_CONTEXT));
    const collapsed = events
      .map((line) => line.event_type)
      .filter((event, index, all) => event !== all[index - 1]);
    assert.deepEqual(collapsed, [
      'stream-start',
      'tool-calls-chunk',
      'text-generation',
      'tool-calls-generation',
      'stream-end',
    ]);
    assert.deepEqual(
      events.map((line) => line.is_finished),
      events.map((_, index) => index === events.length - 1),
      'only stream-end is finished',
    );
  });

  test('streams as application/stream+json', () => {
    assert.equal(cohereV1Writer().streamHeaders(GOLDEN_CONTEXT)['content-type'], 'application/stream+json');
  });

  test('asked for text/event-stream, sends the same objects as server-sent events named by event_type', () => {
    const sse = { ...GOLDEN_CONTEXT, acceptsEventStream: true };
    assert.equal(cohereV1Writer().streamHeaders(sse)['content-type'], 'text/event-stream');
    const pieces = cohereV1Writer().render(exampleScript(), sse);
    assertGolden('cohere-v1/example.sse', pieces.join(''));
    const events = parseSse(pieces.join(''));
    const asLines = lines(cohereV1Writer().render(exampleScript(), GOLDEN_CONTEXT));
    assert.deepEqual(
      events.map((event) => JSON.parse(event.data ?? '{}')),
      asLines,
    );
    assert.deepEqual(
      events.map((event) => event.event),
      asLines.map((line) => line.event_type),
    );
  });

  test('the server answers /v1/chat in SSE when the request accepts text/event-stream, JSON lines otherwise', async () => {
    const server = await startProviderServer({
      respond: () => exampleScript({ delayMs: 0, headersDelayMs: 0 }),
    });
    try {
      const ask = (accept: string) =>
        fetch(`${server.url}/v1/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept },
          body: JSON.stringify({ model: 'command-sim', message: 'weather?', stream: true }),
        });
      for (const accept of ['text/event-stream', 'application/json, Text/Event-Stream; q=0.9']) {
        const response = await ask(accept);
        assert.equal(response.headers.get('content-type'), 'text/event-stream', accept);
        const events = parseSse(await response.text());
        assert.equal(events.at(-1)?.event, 'stream-end', accept);
      }
      const lined = await ask('application/json');
      assert.equal(lined.headers.get('content-type'), 'application/stream+json');
      assert.equal(lines([await lined.text()]).at(-1)?.event_type, 'stream-end');
    } finally {
      await server.close();
    }
  });

  test('the official cohere-ai v1 client (CohereClient) streams it and reads it whole', async () => {
    const server = await startProviderServer({
      respond: () => exampleScript({ delayMs: 1, headersDelayMs: 1 }),
    });
    try {
      const client = new CohereClient({ token: 'co-dummy', baseUrl: server.url, maxRetries: 0 });
      const seen: string[] = [];
      let end: Cohere.StreamedChatResponse.StreamEnd | undefined;
      for await (const event of await client.chatStream({ model: 'command-sim', message: 'weather?' })) {
        if (event.eventType === 'text-generation') seen.push(`text:${event.text}`);
        if (event.eventType === 'tool-calls-chunk') {
          seen.push(
            event.toolCallDelta?.parameters ? `args:${event.toolCallDelta.parameters}` : `plan:${event.text}`,
          );
        }
        if (event.eventType === 'stream-end') end = event;
      }
      assert.deepEqual(seen, [
        'plan:The user wants the weather.',
        'plan: Call the tool.',
        'args:{"city":"Pa',
        'args:ris","unit":"celsius"}',
        'text:It is ',
        'text:sunny in Paris.',
      ]);
      assert.equal(end?.finishReason, 'COMPLETE');
      assert.deepEqual(end?.response.meta?.tokens, { inputTokens: 42, outputTokens: 17 });
      assert.deepEqual(end?.response.toolCalls?.[0]?.parameters, { city: 'Paris', unit: 'celsius' });
      const whole = await client.chat({ model: 'command-sim', message: 'weather?' });
      assert.equal(whole.text, 'It is sunny in Paris.');
      assert.equal(server.sends[0]?.request.format, 'cohere-v1', 'routed by its path');
    } finally {
      await server.close();
    }
  });
});
