import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { ollama } from './ollama.ts';
import { countJsonParses, detect, ndjson } from './testdata/harness.ts';

const chat = (message: object, extra: object = {}) => ({
  model: 'qwen3:8b',
  created_at: '2026-11-30T08:00:00Z',
  message: { role: 'assistant', ...message },
  done: false,
  ...extra,
});

describe('ollama', () => {
  it('reads /api/generate thinking and response', () => {
    const body = ndjson({ response: '', thinking: 'hm', done: false }, { response: 'ok', done: false });
    assert.deepEqual(detect(ollama, [body]), ['event', 'output reasoning', 'event', 'output text']);
  });

  it('does not count empty content or an empty tool call list', () => {
    assert.deepEqual(detect(ollama, [ndjson(chat({ content: '', tool_calls: [] }))]), ['event']);
  });

  it('is not terminal before done: true', () => {
    const body = ndjson(
      chat({ content: 'a' }),
      chat({ content: '' }, { done: true, prompt_eval_count: 1, eval_count: 2 }),
    );
    assert.deepEqual(detect(ollama, [body]), ['event', 'output text', 'event', 'usage 1 2', 'terminal']);
  });

  it('never reads the error text, whatever its shape', () => {
    assert.deepEqual(detect(ollama, [ndjson({ error: { message: 'secret', type: 'x' } })]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('reads a final record that arrives without its newline only when the body ends', () => {
    const observer: string[] = [];
    const detector = ollama.createDetector({
      event: () => observer.push('event'),
      output: (kind) => observer.push(kind),
      usage: () => observer.push('usage'),
      terminal: () => observer.push('terminal'),
      streamError: () => observer.push('error'),
    });
    detector.feed(Buffer.from('{"done":true,"eval_count":1}'));
    assert.deepEqual(observer, []);
    detector.end();
    assert.deepEqual(observer, ['event', 'usage', 'terminal']);
  });

  it('parses no text record once text has been seen', () => {
    const records = Array.from({ length: 50 }, (_, i) => chat({ content: ` w${i}` }));
    assert.equal(
      countJsonParses(() => detect(ollama, [ndjson(...records)])),
      1,
    );
  });
});
