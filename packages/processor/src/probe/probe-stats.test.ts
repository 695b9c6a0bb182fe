import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MeasuredCall } from './instrumented-client.ts';
import { exactQuantile, probeTable, summarizeCalls } from './probe-stats.ts';

const ok = (ms: number): MeasuredCall => ({
  lane: 'l',
  outcome: 'ok',
  errorType: undefined,
  statusCode: 200,
  milestonesMs: { headers: ms, first_chunk: ms + 1, first_output: ms + 2, first_text: ms + 3, end: ms + 100 },
  diagnosis: 'generation_slow',
  outputTokensPerSecond: 50,
});

describe('probe statistics', () => {
  it('interpolates between the closest ranks', () => {
    assert.equal(exactQuantile([], 0.5), null);
    assert.equal(exactQuantile([4], 0.99), 4);
    assert.equal(exactQuantile([1, 2, 3, 4, 5], 0.5), 3);
    assert.equal(exactQuantile([0, 10], 0.95), 9.5);
  });

  it('takes quantiles over successful calls and counts errors before each milestone', () => {
    const calls: MeasuredCall[] = [
      ...Array.from({ length: 100 }, (_, i) => ok(100 + i)),
      {
        lane: 'l',
        outcome: 'error',
        errorType: 'rate_limited',
        statusCode: 429,
        milestonesMs: { headers: 20, end: 21 },
        diagnosis: undefined,
        outputTokensPerSecond: undefined,
      },
      {
        lane: 'l',
        outcome: 'error',
        errorType: 'connection_refused',
        statusCode: undefined,
        milestonesMs: { end: 1 },
        diagnosis: undefined,
        outputTokensPerSecond: undefined,
      },
    ];
    const summary = summarizeCalls(calls);
    assert.equal(summary.calls, 102);
    assert.deepEqual(summary.errors, { rate_limited: 1, connection_refused: 1 });
    const headers = summary.milestones.time_to_headers;
    assert.equal(headers?.ok, 100);
    assert.equal(headers?.errors, 1, 'the refused call never saw headers; the 429 did');
    assert.equal(summary.milestones.time_to_first_chunk?.errors, 2);
    assert.equal(summary.milestones.duration?.errors, 0, 'every call ends');
    assert.equal(headers?.p50, 0.1495);
    assert.equal(headers?.max, 0.199);
    assert.deepEqual(summary.diagnoses, { generation_slow: 100 });
    const table = probeTable(summary);
    assert.equal(table.length, 6);
    assert.match(table[0] as string, /milestone +ok +p50 s +p95 s +p99 s +max s +errors/);
    assert.match(table[1] as string, /^time_to_headers +100 +0\.1(49|50) +0\.194 /);
  });
});
