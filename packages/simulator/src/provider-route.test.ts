import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { routeOf } from './provider-route.ts';
import { requestFields } from './request-fields.ts';

describe('routeOf', () => {
  test('routes by the path each API uses, under any prefix', () => {
    assert.deepEqual(routeOf('POST', '/v1/chat/completions'), { format: 'openai-chat' });
    assert.deepEqual(routeOf('POST', '/api/v1/chat/completions'), { format: 'openai-chat' });
    assert.deepEqual(routeOf('POST', '/lane-a/v1/responses'), { format: 'openai-responses' });
    assert.deepEqual(routeOf('POST', '/v1/messages?beta=true'), { format: 'anthropic' });
    assert.deepEqual(routeOf('POST', '/api/chat'), { format: 'ollama', endpoint: 'chat' });
    assert.deepEqual(routeOf('POST', '/api/generate'), { format: 'ollama', endpoint: 'generate' });
    assert.deepEqual(routeOf('POST', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=k'), {
      format: 'gemini',
      model: 'gemini-2.5-flash',
      stream: true,
      sse: true,
    });
    assert.deepEqual(routeOf('POST', '/v1beta/models/g:generateContent'), {
      format: 'gemini',
      model: 'g',
      stream: false,
      sse: false,
    });
  });

  test("Vertex AI's partner models: their maker's format, the model and streaming from the path", () => {
    const base = '/v1/projects/p/locations/us-east5/publishers';
    assert.deepEqual(routeOf('POST', `${base}/anthropic/models/claude-sonnet-4@20250514:streamRawPredict`), {
      format: 'anthropic',
      model: 'claude-sonnet-4@20250514',
      stream: true,
    });
    assert.deepEqual(routeOf('POST', `${base}/anthropic/models/claude-sonnet-4@20250514:rawPredict`), {
      format: 'anthropic',
      model: 'claude-sonnet-4@20250514',
      stream: false,
    });
    assert.deepEqual(routeOf('POST', `${base}/mistralai/models/mistral-large-2411:streamRawPredict`), {
      format: 'openai-chat',
      model: 'mistral-large-2411',
      stream: true,
    });
    assert.equal(routeOf('POST', `${base}/meta/models/llama:streamRawPredict`), undefined);
  });

  test('Amazon Bedrock: the operation decides format and streaming, the model is the decoded segment', () => {
    const model = 'anthropic.claude-3-5-sonnet-20241022-v2:0';
    const encoded = 'anthropic.claude-3-5-sonnet-20241022-v2%3A0';
    assert.deepEqual(routeOf('POST', `/model/${encoded}/invoke-with-response-stream`), {
      format: 'bedrock-invoke',
      model,
      stream: true,
    });
    assert.deepEqual(routeOf('POST', `/model/${encoded}/invoke`), {
      format: 'bedrock-invoke',
      model,
      stream: false,
    });
    assert.deepEqual(routeOf('POST', '/lane-b/model/amazon.nova-pro-v1%3A0/converse-stream'), {
      format: 'bedrock-converse',
      model: 'amazon.nova-pro-v1:0',
      stream: true,
    });
    assert.deepEqual(routeOf('POST', '/model/amazon.nova-pro-v1:0/converse?x=1'), {
      format: 'bedrock-converse',
      model: 'amazon.nova-pro-v1:0',
      stream: false,
    });
    // An inference profile's ARN arrives with its slash encoded; broken encoding is kept as sent.
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4';
    assert.equal(routeOf('POST', `/model/${encodeURIComponent(arn)}/converse-stream`)?.model, arn);
    assert.equal(routeOf('POST', '/model/bad%E0%A4%A/converse')?.model, 'bad%E0%A4%A');
    assert.equal(routeOf('POST', '/model/m/invoke-with-bidirectional-stream'), undefined);
    assert.equal(routeOf('POST', '/model//converse'), undefined);
    assert.deepEqual(
      requestFields({ format: 'bedrock-converse', model: 'm', stream: true }, '{"messages":[]}'),
      {
        model: 'm',
        stream: true,
        includeUsage: false,
      },
    );
  });

  test('anything else is not a provider API', () => {
    assert.equal(routeOf('GET', '/v1/chat/completions'), undefined);
    assert.equal(routeOf('POST', '/v1/embeddings'), undefined);
    assert.equal(routeOf('POST', '/chat/completions/x'), undefined);
  });
});

describe('requestFields', () => {
  test('reads model, stream and include_usage and nothing else', () => {
    const body = JSON.stringify({
      model: 'gpt-x',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'secret' }],
    });
    assert.deepEqual(requestFields({ format: 'openai-chat' }, body), {
      model: 'gpt-x',
      stream: true,
      includeUsage: true,
    });
  });

  test('Ollama streams unless told not to; the others only when asked', () => {
    assert.equal(requestFields({ format: 'ollama', endpoint: 'chat' }, '{"model":"m"}').stream, true);
    assert.equal(requestFields({ format: 'ollama', endpoint: 'chat' }, '{"stream":false}').stream, false);
    assert.equal(requestFields({ format: 'anthropic' }, '{"model":"m"}').stream, false);
  });

  test('Gemini takes model and streaming from the path; a body that is not JSON is tolerated', () => {
    const route = { format: 'gemini', model: 'g', stream: true, sse: true } as const;
    assert.deepEqual(requestFields(route, 'not json'), { model: 'g', stream: true, includeUsage: false });
    assert.equal(requestFields({ format: 'openai-chat' }, undefined).model, 'unknown');
  });
});
