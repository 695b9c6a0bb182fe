import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createStreamReport, sanitizeErrorType } from './stream-report.ts';
import { RecordingObserver } from './testdata/harness.ts';

describe('sanitizeErrorType', () => {
  it('keeps short lowercase identifiers, lowercasing provider statuses', () => {
    assert.equal(sanitizeErrorType('overloaded_error'), 'overloaded_error');
    assert.equal(sanitizeErrorType('RESOURCE_EXHAUSTED'), 'resource_exhausted');
    assert.equal(sanitizeErrorType('invalid_request_error.v2'), 'invalid_request_error.v2');
    assert.equal(sanitizeErrorType(502), '502');
    assert.equal(sanitizeErrorType('x'.repeat(48)), 'x'.repeat(48));
  });

  it('folds anything else into `other`', () => {
    for (const value of ['rate-limit', 'has space', 'x'.repeat(49), 'ünïcode', 'a/b', 1.5, {}, [], true]) {
      assert.equal(sanitizeErrorType(value), 'other', JSON.stringify(value));
    }
  });

  it('says `untyped` when the provider gave no type', () => {
    for (const value of [undefined, null, '']) assert.equal(sanitizeErrorType(value), 'untyped');
  });
});

describe('createStreamReport', () => {
  it('reports each output kind once, up to the first text, and the terminal event once', () => {
    const observer = new RecordingObserver();
    const report = createStreamReport(observer);
    report.output('reasoning');
    report.output('tool_call');
    report.output('reasoning');
    assert.equal(report.has('text'), false);
    report.output('text');
    report.output('text');
    report.terminal();
    report.terminal();
    assert.deepEqual(observer.calls, ['output reasoning', 'output tool_call', 'output text', 'terminal']);
    assert.equal(report.terminated, true);
  });

  it('stops looking for output after the first text, the last milestone', () => {
    const observer = new RecordingObserver();
    const report = createStreamReport(observer);
    const masks = { text: 1, reasoning: 2, tool_call: 4 };
    assert.equal(report.unseen(masks), 7);
    report.output('reasoning');
    assert.equal(report.unseen(masks), 5);
    report.output('text');
    assert.equal(report.unseen(masks), 0);
    assert.equal(report.has('tool_call'), true);
    report.output('tool_call');
    assert.deepEqual(observer.calls, ['output reasoning', 'output text']);
  });

  it('passes on token counts only when they are counts', () => {
    const observer = new RecordingObserver();
    const report = createStreamReport(observer);
    report.usage(10, '5');
    report.usage(undefined, null);
    report.usage(-1, 2.5);
    report.usage(undefined, 7);
    assert.deepEqual(observer.calls, ['usage 10 -', 'usage - 7']);
  });
});
