import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gemini } from './gemini.ts';
import { countJsonParses, detect, sse } from './testdata/harness.ts';

const response = (parts: object[], extra: object = {}) => ({
  candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }],
});

describe('gemini', () => {
  it('tells thought parts from text, in part order, within one event', () => {
    const body = sse(response([{ text: 'plan', thought: true }, { text: 'answer' }]));
    assert.deepEqual(detect(gemini, [body]), ['event', 'output reasoning', 'output text']);
  });

  it('does not count an empty part or a thought signature as output', () => {
    const body = sse(response([{ text: '' }, { text: '', thoughtSignature: 'Cik' }]));
    assert.deepEqual(detect(gemini, [body]), ['event']);
  });

  it('counts executable code as a tool call', () => {
    const body = sse(response([{ executableCode: { language: 'PYTHON', code: 'print(1)' } }]));
    assert.deepEqual(detect(gemini, [body]), ['event', 'output tool_call']);
  });

  it('is terminal once, with the usage of the finishing event', () => {
    const body = sse(response([{ text: 'a' }], { finishReason: 'STOP' }), {
      ...response([{ text: '' }], { finishReason: 'STOP' }),
      usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1 },
    });
    assert.deepEqual(detect(gemini, [body]), ['event', 'output text', 'terminal', 'event', 'usage 2 1']);
  });

  it('types an error by status, else by code', () => {
    assert.deepEqual(
      detect(gemini, [sse({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'm' } })]),
      ['event', 'streamError resource_exhausted'],
    );
    assert.deepEqual(detect(gemini, [sse({ error: { code: 500, message: 'm' } })]), [
      'event',
      'streamError 500',
    ]);
  });

  it('parses no text event once text has been seen, despite the running usage in each', () => {
    const usageMetadata = { promptTokenCount: 8, candidatesTokenCount: 3, totalTokenCount: 11 };
    const events = Array.from({ length: 50 }, (_, i) => ({
      ...response([{ text: ` w${i}` }]),
      usageMetadata,
    }));
    assert.equal(
      countJsonParses(() => detect(gemini, [sse(...events)])),
      1,
    );
  });
});
