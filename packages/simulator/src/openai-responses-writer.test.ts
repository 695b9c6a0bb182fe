import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { exampleScript } from './example-script.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { openaiResponsesWriter } from './openai-responses-writer.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Script } from './script.ts';
import { parseSse } from './sse.test-helper.ts';

describe('openai-responses writer: bytes', () => {
  test('the example script as the Responses API sends it', () => {
    const pieces = openaiResponsesWriter().render(exampleScript(), GOLDEN_CONTEXT);
    assertGolden('openai-responses/example.sse', pieces.join(''));
  });

  test('every event names its type twice and sequence numbers count from 0 without gaps', () => {
    const events = parseSse(openaiResponsesWriter().render(exampleScript(), GOLDEN_CONTEXT).join('')).filter(
      (item) => item.data !== undefined,
    );
    events.forEach((item, index) => {
      const body = JSON.parse(item.data ?? '') as { type: string; sequence_number: number };
      assert.equal(body.type, item.event);
      assert.equal(body.sequence_number, index);
    });
    assert.equal(events.at(-1)?.event, 'response.completed');
  });

  test('a stop for length ends with response.incomplete', () => {
    const script = exampleScript();
    const pieces = script.pieces.map((piece) =>
      piece.kind === 'finish' ? { ...piece, reason: 'length' as const } : piece,
    );
    const bytes = openaiResponsesWriter()
      .render({ ...script, pieces }, GOLDEN_CONTEXT)
      .join('');
    assert.match(bytes, /event: response\.incomplete\n/);
    assert.doesNotMatch(bytes, /response\.completed/);
  });
});

describe('openai-responses writer: the official openai SDK reads it', () => {
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  let client: OpenAI;
  before(async () => {
    server = await startProviderServer({ respond: () => next });
    client = new OpenAI({ apiKey: 'sk-dummy', baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  after(() => server.close());

  test('create({ stream: true }) yields reasoning summary, argument and text deltas in order', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const stream = await client.responses.create({ model: 'gpt-sim', input: 'weather?', stream: true });
    const seen: string[] = [];
    let usage: OpenAI.Responses.ResponseUsage | null | undefined;
    for await (const event of stream) {
      if (event.type === 'response.reasoning_summary_text.delta') seen.push(`reasoning:${event.delta}`);
      if (event.type === 'response.function_call_arguments.delta') seen.push(`args:${event.delta}`);
      if (event.type === 'response.output_text.delta') seen.push(`text:${event.delta}`);
      if (event.type === 'response.completed') usage = event.response.usage;
    }
    assert.deepEqual(seen, [
      'reasoning:The user wants the weather.',
      'reasoning: Call the tool.',
      'args:{"city":"Pa',
      'args:ris","unit":"celsius"}',
      'text:It is ',
      'text:sunny in Paris.',
    ]);
    assert.equal(usage?.input_tokens, 42);
    assert.equal(usage?.output_tokens_details.reasoning_tokens, 9);
  });

  test('the stream helper accumulates the final response', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const response = await client.responses.stream({ model: 'gpt-sim', input: 'weather?' }).finalResponse();
    assert.equal(response.status, 'completed');
    assert.equal(response.output_text, 'It is sunny in Paris.');
    const call = response.output.find((item) => item.type === 'function_call');
    assert.ok(call?.type === 'function_call');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris', unit: 'celsius' });
  });

  test('without stream: a whole response with its output items and usage', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const response = await client.responses.create({ model: 'gpt-sim', input: 'weather?' });
    assert.equal(response.status, 'completed');
    assert.equal(response.output_text, 'It is sunny in Paris.');
    assert.deepEqual(
      response.output.map((item) => item.type),
      ['reasoning', 'function_call', 'message'],
    );
    assert.equal(response.usage?.total_tokens, 59);
  });

  test('an in-stream error event surfaces as an APIError', async () => {
    next = {
      kind: 'stream',
      headersDelayMs: 1,
      pieces: [
        { kind: 'start', delayMs: 1 },
        { kind: 'text', delayMs: 1, text: 'Hel' },
        { kind: 'error', delayMs: 1, errorType: 'overloaded' },
      ],
    };
    const stream = await client.responses.create({ model: 'm', input: 'x', stream: true });
    await assert.rejects(async () => {
      for await (const _ of stream);
    }, OpenAI.APIError);
  });

  test('503 is an InternalServerError carrying the OpenAI error body', async () => {
    next = { kind: 'error', status: 503, headersDelayMs: 0 };
    await assert.rejects(client.responses.create({ model: 'm', input: 'x', stream: true }), (error) => {
      assert.ok(error instanceof OpenAI.InternalServerError);
      assert.equal(error.status, 503);
      assert.equal((error.error as { type?: string }).type, 'server_error');
      return true;
    });
  });
});
