import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  detectFormat,
  endpointOf,
  PROBE_PROMPT,
  PROVIDER_FORMATS,
  providerRequest,
} from './provider-request.ts';

const url = (s: string) => new URL(s);

describe('provider requests', () => {
  it('hangs each endpoint off a base URL, a bare origin or a full endpoint alike', () => {
    const cases: [Parameters<typeof endpointOf>[0], string, string][] = [
      ['openai-chat', 'https://api.openai.com/v1', 'https://api.openai.com/v1/chat/completions'],
      ['openai-chat', 'http://127.0.0.1:8000', 'http://127.0.0.1:8000/v1/chat/completions'],
      ['openai-chat', 'https://openrouter.ai/api/v1/', 'https://openrouter.ai/api/v1/chat/completions'],
      ['openai-chat', 'http://h/v1/chat/completions', 'http://h/v1/chat/completions'],
      ['openai-responses', 'https://api.openai.com/v1', 'https://api.openai.com/v1/responses'],
      ['anthropic', 'https://api.anthropic.com', 'https://api.anthropic.com/v1/messages'],
      ['anthropic', 'https://api.anthropic.com/v1', 'https://api.anthropic.com/v1/messages'],
      [
        'gemini',
        'https://generativelanguage.googleapis.com',
        'https://generativelanguage.googleapis.com/v1beta/models/g-1:streamGenerateContent?alt=sse',
      ],
      [
        'gemini',
        'https://generativelanguage.googleapis.com/v1beta',
        'https://generativelanguage.googleapis.com/v1beta/models/g-1:streamGenerateContent?alt=sse',
      ],
      ['ollama', 'http://127.0.0.1:11434', 'http://127.0.0.1:11434/api/chat'],
      ['ollama', 'http://127.0.0.1:11434/api', 'http://127.0.0.1:11434/api/chat'],
      ['cohere', 'https://api.cohere.com', 'https://api.cohere.com/v2/chat'],
      ['cohere', 'https://api.cohere.com/v2', 'https://api.cohere.com/v2/chat'],
      ['cohere', 'https://api.cohere.com/v2/chat', 'https://api.cohere.com/v2/chat'],
      ['cohere', 'https://api.cohere.com/v1', 'https://api.cohere.com/v2/chat'],
      ['cohere', 'http://127.0.0.1:8080/lane-a', 'http://127.0.0.1:8080/lane-a/v2/chat'],
      [
        'bedrock-converse',
        'https://bedrock-runtime.us-east-1.amazonaws.com',
        'https://bedrock-runtime.us-east-1.amazonaws.com/model/g-1/converse-stream',
      ],
      [
        'bedrock-converse',
        'https://bedrock-runtime.us-east-1.amazonaws.com/model/other/converse-stream',
        'https://bedrock-runtime.us-east-1.amazonaws.com/model/g-1/converse-stream',
      ],
    ];
    for (const [format, base, expected] of cases) {
      assert.equal(endpointOf(format, url(base), 'g-1').toString(), expected, `${format} ${base}`);
    }
  });

  it('sends keys in headers only, never in the URL', () => {
    for (const format of PROVIDER_FORMATS) {
      const request = providerRequest(format, url('http://127.0.0.1:1/v1'), {
        model: 'm',
        apiKey: 'KEY-123',
      });
      assert.ok(!request.url.toString().includes('KEY-123'), format);
      assert.ok(
        Object.values(request.init.headers).some((v) => v.includes('KEY-123')),
        format,
      );
      assert.ok(request.init.body.includes(PROBE_PROMPT), format);
    }
    const gemini = providerRequest('gemini', url('https://generativelanguage.googleapis.com'), {
      model: 'm',
      apiKey: 'k',
    });
    assert.equal(gemini.init.headers['x-goog-api-key'], 'k');
    assert.equal(gemini.url.search, '?alt=sse');
  });

  it('asks every format for a stream', () => {
    for (const format of PROVIDER_FORMATS.filter((f) => f !== 'gemini' && f !== 'bedrock-converse')) {
      const body = JSON.parse(providerRequest(format, url('http://h/v1'), { model: 'm' }).init.body);
      assert.equal(body.stream, true, format);
    }
    assert.match(
      providerRequest('gemini', url('http://h'), { model: 'm' }).url.pathname,
      /:streamGenerateContent$/,
    );
    // Bedrock streams by its operation; a model id's `:` is percent-encoded, as the AWS SDKs send it.
    const bedrock = providerRequest(
      'bedrock-converse',
      url('https://bedrock-runtime.us-east-1.amazonaws.com'),
      {
        model: 'us.anthropic.claude-haiku-4-5-20251001-v1:0',
      },
    );
    assert.equal(
      bedrock.url.pathname,
      '/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream',
    );
    assert.deepEqual(JSON.parse(bedrock.init.body), {
      messages: [{ role: 'user', content: [{ text: PROBE_PROMPT }] }],
    });
  });

  it('detects the format from the host, port or path, and says nothing when nothing tells', () => {
    assert.equal(detectFormat(url('https://api.anthropic.com')), 'anthropic');
    assert.equal(detectFormat(url('https://generativelanguage.googleapis.com')), 'gemini');
    assert.equal(detectFormat(url('http://localhost:11434')), 'ollama');
    assert.equal(detectFormat(url('https://api.openai.com/v1')), 'openai-chat');
    assert.equal(detectFormat(url('http://10.0.0.1:8000/v1')), 'openai-chat');
    assert.equal(detectFormat(url('http://h/v1/responses')), 'openai-responses');
    assert.equal(detectFormat(url('http://h/v1/messages')), 'anthropic');
    assert.equal(detectFormat(url('https://api.cohere.com')), 'cohere');
    assert.equal(detectFormat(url('https://api.cohere.ai/v2')), 'cohere');
    assert.equal(detectFormat(url('http://h/v2/chat')), 'cohere');
    // Cohere's OpenAI-compatible API is Chat Completions.
    assert.equal(detectFormat(url('https://api.cohere.ai/compatibility/v1')), 'openai-chat');
    assert.equal(detectFormat(url('https://bedrock-runtime.eu-west-1.amazonaws.com')), 'bedrock-converse');
    assert.equal(detectFormat(url('http://h/model/m/converse-stream')), 'bedrock-converse');
    // Bedrock's OpenAI-compatible API is Chat Completions.
    assert.equal(
      detectFormat(url('https://bedrock-runtime.us-west-2.amazonaws.com/openai/v1')),
      'openai-chat',
    );
    assert.equal(detectFormat(url('http://h:9000')), undefined);
  });
});
