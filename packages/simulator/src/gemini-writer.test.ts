import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exampleScript } from './example-script.ts';
import { geminiWriter } from './gemini-writer.ts';
import { assertGolden, GOLDEN_CONTEXT } from './golden-file.test-helper.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Script, StreamScript } from './script.ts';
import { WireFormatError } from './wire-format.ts';

/**
 * Reads the stream the way Google's JS SDKs do: one `data: <json>` line per event, each ended by a
 * blank line (`\r\n\r\n`, `\n\n` or `\r\r`), every event a whole GenerateContentResponse.
 */
interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args: unknown };
}
interface GeminiResponse {
  candidates?: Array<{ content: { parts: GeminiPart[]; role: string }; finishReason?: string }>;
  usageMetadata?: Record<string, number>;
  modelVersion?: string;
  error?: unknown;
}

function readLikeGoogleSdk(text: string): GeminiResponse[] {
  const responseLine = /^data: (.*)(?:\n\n|\r\r|\r\n\r\n)/;
  const responses: GeminiResponse[] = [];
  let rest = text;
  for (let match = responseLine.exec(rest); match; match = responseLine.exec(rest)) {
    responses.push(JSON.parse(match[1] ?? '') as GeminiResponse);
    rest = rest.slice(match[0].length);
  }
  assert.equal(rest, '', 'nothing left over after the last event');
  return responses;
}

const parts = (response: GeminiResponse): GeminiPart[] => response.candidates?.[0]?.content.parts ?? [];

describe('gemini writer: bytes', () => {
  test('the example script as streamGenerateContent?alt=sse sends it (CRLF framing)', () => {
    const bytes = geminiWriter().render(exampleScript(), GOLDEN_CONTEXT).join('');
    assertGolden('gemini/example.sse', bytes);
    assert.doesNotMatch(bytes, /[^\r]\n/, 'every line break is CRLF');
  });

  test('thought parts, one whole functionCall, text, then finishReason with the full usageMetadata', () => {
    const responses = readLikeGoogleSdk(geminiWriter().render(exampleScript(), GOLDEN_CONTEXT).join(''));
    const seen = responses.flatMap((response) =>
      parts(response).map((part) =>
        part.thought
          ? `thought:${part.text}`
          : part.functionCall
            ? `call:${JSON.stringify(part.functionCall)}`
            : `text:${part.text}`,
      ),
    );
    assert.deepEqual(seen, [
      'thought:The user wants the weather.',
      'thought: Call the tool.',
      'call:{"name":"get_weather","args":{"city":"Paris","unit":"celsius"}}',
      'text:It is ',
      'text:sunny in Paris.',
      'text:',
    ]);
    const last = responses.at(-1);
    assert.equal(last?.candidates?.[0]?.finishReason, 'STOP');
    assert.deepEqual(last?.usageMetadata, {
      promptTokenCount: 42,
      candidatesTokenCount: 8,
      totalTokenCount: 59,
      thoughtsTokenCount: 9,
    });
    assert.ok(
      responses.slice(0, -1).every((response) => response.candidates?.[0]?.finishReason === undefined),
    );
    for (const response of responses) assert.equal(response.modelVersion, 'sim-model');
  });

  test('a call whose fragments do not join into JSON cannot be sent whole: WireFormatError', () => {
    const script: StreamScript = {
      kind: 'stream',
      headersDelayMs: 0,
      pieces: [{ kind: 'tool-call', delayMs: 0, call: 0, name: 'f', args: '{"a":' }],
    };
    assert.throws(() => geminiWriter().render(script, GOLDEN_CONTEXT), WireFormatError);
  });

  test('an in-stream error is a google.rpc.Status event', () => {
    const script: StreamScript = {
      kind: 'stream',
      headersDelayMs: 0,
      pieces: [{ kind: 'error', delayMs: 0, errorType: 'overloaded' }],
    };
    const [event] = readLikeGoogleSdk(geminiWriter().render(script, GOLDEN_CONTEXT).join(''));
    assert.deepEqual(event, {
      error: {
        code: 503,
        message: 'The model is overloaded. Please try again later.',
        status: 'UNAVAILABLE',
      },
    });
  });
});

describe('gemini writer: served like the API', () => {
  let server: ProviderServer;
  let next: Script = exampleScript({ delayMs: 1, headersDelayMs: 1 });
  before(async () => {
    server = await startProviderServer({ respond: () => next });
  });
  after(() => server.close());

  const call = (method: string) =>
    fetch(`${server.url}/v1beta/models/gemini-sim:${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'dummy' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'weather?' }] }] }),
    });

  test('the model comes from the path; the body is an event stream', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const response = await call('streamGenerateContent?alt=sse');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const responses = readLikeGoogleSdk(await response.text());
    assert.equal(responses[0]?.modelVersion, 'gemini-sim');
    assert.equal(server.sends.at(-1)?.request.model, 'gemini-sim');
  });

  test('429 carries RESOURCE_EXHAUSTED with a RetryInfo detail and retry-after', async () => {
    next = { kind: 'error', status: 429, headersDelayMs: 0, retryAfterSeconds: 17 };
    const response = await call('streamGenerateContent?alt=sse');
    assert.equal(response.status, 429);
    assert.equal(response.headers.get('retry-after'), '17');
    assert.deepEqual(await response.json(), {
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' }],
      },
    });
  });

  test('generateContent answers whole: every part, the finishReason and the usage in one response', async () => {
    next = exampleScript({ delayMs: 1, headersDelayMs: 1 });
    const response = await call('generateContent');
    assert.equal(response.status, 200);
    const body = (await response.json()) as GeminiResponse;
    assert.deepEqual(parts(body), [
      { text: 'The user wants the weather. Call the tool.', thought: true },
      { functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } } },
      { text: 'It is sunny in Paris.' },
    ]);
    assert.equal(body.candidates?.[0]?.finishReason, 'STOP');
    assert.equal(body.usageMetadata?.totalTokenCount, 59);
  });

  test('without alt=sse the simulator refuses plainly instead of inventing the JSON-array stream', async () => {
    const response = await call('streamGenerateContent');
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /alt=sse/);
  });
});
