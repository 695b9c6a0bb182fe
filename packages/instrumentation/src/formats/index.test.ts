import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FORMATS, selectFormat } from './index.ts';

const SSE = 'text/event-stream';
const NDJSON = 'application/x-ndjson';
const nameOf = (path: string, contentType: string | undefined) => selectFormat(path, contentType)?.name;

describe('selectFormat', () => {
  it('names the provider format from the path', () => {
    assert.equal(nameOf('/v1/chat/completions', SSE), 'openai_chat');
    assert.equal(nameOf('/openai/deployments/gpt-4o/chat/completions', SSE), 'openai_chat');
    assert.equal(nameOf('/v1beta/openai/chat/completions', SSE), 'openai_chat');
    assert.equal(nameOf('/v1/responses', SSE), 'openai_responses');
    assert.equal(nameOf('/v1/responses/resp_68f1a2b3', SSE), 'openai_responses');
    assert.equal(nameOf('/v1/messages', SSE), 'anthropic_messages');
    assert.equal(nameOf('/v1beta/models/gemini-2.5-flash:streamGenerateContent', SSE), 'gemini');
    assert.equal(nameOf('/api/chat', NDJSON), 'ollama');
    assert.equal(nameOf('/api/generate', NDJSON), 'ollama');
  });

  it('reads the path only: the query is cut off before matching', () => {
    assert.equal(
      nameOf('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=k', SSE),
      'gemini',
    );
    assert.equal(nameOf('/v1/messages?beta=true', SSE), 'anthropic_messages');
    assert.equal(nameOf('/v1/other?next=/v1/chat/completions', SSE), 'sse');
    assert.equal(nameOf('/v1/chat/completions/', SSE), 'openai_chat');
  });

  it('reads the content type without its parameters and case', () => {
    assert.equal(nameOf('/v1/chat/completions', 'Text/Event-Stream; charset=utf-8'), 'openai_chat');
    assert.equal(nameOf('/api/chat', 'application/x-ndjson; charset=utf-8'), 'ollama');
  });

  it('falls back to the generic SSE or NDJSON format for other paths', () => {
    assert.equal(nameOf('/v2/generate_stream', SSE), 'sse');
    assert.equal(nameOf('/stream', 'application/jsonl'), 'ndjson');
    assert.equal(nameOf('/stream', 'application/stream+json'), 'ndjson');
    assert.equal(nameOf('/stream', 'application/x-jsonlines; charset=utf-8'), 'ndjson');
    assert.equal(nameOf('/stream', 'application/ndjson'), 'ndjson');
  });

  it('uses the generic format when the framing is not the one the path names', () => {
    assert.equal(nameOf('/api/chat', SSE), 'sse');
    assert.equal(nameOf('/v1/chat/completions', NDJSON), 'ndjson');
  });

  it('gives nothing for a response that is not a stream', () => {
    assert.equal(nameOf('/v1/chat/completions', 'application/json'), undefined);
    assert.equal(nameOf('/api/chat', 'application/json; charset=utf-8'), undefined);
    // Gemini without alt=sse: one JSON array sent as application/json.
    assert.equal(
      nameOf('/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'application/json'),
      undefined,
    );
    assert.equal(nameOf('/v1/chat/completions', undefined), undefined);
    assert.equal(nameOf('/index.html', 'text/html'), undefined);
  });

  it('names, in the README, every format a span can carry as lanewatch.format', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const name of Object.keys(FORMATS)) assert.ok(readme.includes(`\`${name}\``), name);
  });
});
