import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exampleScript } from './example-script.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { ollamaWriter } from './ollama-writer.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Script } from './script.ts';

/** NDJSON as Ollama's clients read it: every line one JSON object, every line ended by `\n`. */
interface OllamaLine {
  model?: string;
  created_at?: string;
  message?: { role: string; content: string; thinking?: string; tool_calls?: unknown[] };
  response?: string;
  thinking?: string;
  done?: boolean;
  done_reason?: string;
  context?: number[];
  total_duration?: number;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

function ndjson(text: string): OllamaLine[] {
  assert.ok(text.endsWith('\n'));
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as OllamaLine);
}

describe('ollama writer: bytes', () => {
  test('/api/chat: the example script as Ollama sends it', () => {
    const bytes = ollamaWriter()
      .render(exampleScript(), { ...GOLDEN_CONTEXT, endpoint: 'chat' })
      .join('');
    assertGolden('ollama/chat-example.ndjson', bytes);
    const lines = ndjson(bytes);
    const seen = lines.map((line) =>
      line.done
        ? 'done'
        : line.message?.thinking
          ? `thinking:${line.message.thinking}`
          : line.message?.tool_calls
            ? `call:${JSON.stringify(line.message.tool_calls)}`
            : `text:${line.message?.content}`,
    );
    assert.deepEqual(seen, [
      'thinking:The user wants the weather.',
      'thinking: Call the tool.',
      'call:[{"function":{"name":"get_weather","arguments":{"city":"Paris","unit":"celsius"}}}]',
      'text:It is ',
      'text:sunny in Paris.',
      'done',
    ]);
    const last = lines.at(-1) ?? {};
    assert.equal(last.done_reason, 'stop');
    assert.equal(last.prompt_eval_count, 42);
    assert.equal(last.eval_count, 17);
    // Durations are nanoseconds derived from the schedule: finish is due 20 + 9 × 10 ms after arrival.
    assert.equal(last.total_duration, 110_000_000);
    assert.ok(lines.every((line) => line.model === 'sim-model' && typeof line.created_at === 'string'));
  });

  test('/api/generate: `response` and `thinking` fields, `context` on the last line, no tool calls', () => {
    const bytes = ollamaWriter()
      .render(exampleScript(), { ...GOLDEN_CONTEXT, endpoint: 'generate' })
      .join('');
    assertGolden('ollama/generate-example.ndjson', bytes);
    const lines = ndjson(bytes);
    assert.deepEqual(
      lines.filter((line) => !line.done).map((line) => line.thinking ?? line.response),
      ['The user wants the weather.', ' Call the tool.', 'It is ', 'sunny in Paris.'],
    );
    assert.ok(Array.isArray(lines.at(-1)?.context));
  });
});

describe('ollama writer: served like the API', () => {
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  before(async () => {
    server = await startProviderServer({ respond: () => next });
  });
  after(() => server.close());

  test('/api/chat streams NDJSON by default', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama-sim', messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
    const lines = ndjson(await response.text());
    assert.equal(lines[0]?.model, 'llama-sim');
    assert.equal(lines.at(-1)?.done, true);
  });

  test('"stream": false answers with one object: the whole message and the counts', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama-sim', stream: false, messages: [] }),
    });
    const body = (await response.json()) as OllamaLine;
    assert.equal(body.done, true);
    assert.equal(body.message?.content, 'It is sunny in Paris.');
    assert.equal(body.message?.thinking, 'The user wants the weather. Call the tool.');
    assert.equal(body.message?.tool_calls?.length, 1);
    assert.equal(body.eval_count, 17);
  });

  test('an in-stream error is an {"error": …} line', async () => {
    next = {
      kind: 'stream',
      headersDelayMs: 0,
      pieces: [
        { kind: 'text', delayMs: 0, text: 'Hel' },
        { kind: 'error', delayMs: 1, errorType: 'internal' },
      ],
    };
    const response = await fetch(`${server.url}/api/generate`, { method: 'POST', body: '{"model":"m"}' });
    const lines = ndjson(await response.text());
    assert.equal(typeof lines.at(-1)?.error, 'string');
  });

  test('errors are {"error": "…"} with the status', async () => {
    next = { kind: 'error', status: 500, headersDelayMs: 0 };
    const response = await fetch(`${server.url}/api/chat`, { method: 'POST', body: '{"model":"m"}' });
    assert.equal(response.status, 500);
    const body = (await response.json()) as { error: unknown };
    assert.equal(typeof body.error, 'string');
  });
});
