import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cloneHistogram, histogramOf, recordValue } from './exponential-histogram.ts';
import { bucketIndex } from './exponential-mapping.ts';
import { subtractHistogram } from './subtract.ts';

describe('subtracting cumulative histograms', () => {
  it('recovers what was recorded in between, across a scale change', () => {
    const first = [0.2, 0.3, 0.25];
    const later = [0.001, 40, 0.31];
    const cumulative = histogramOf(first);
    const previous = cloneHistogram(cumulative);
    for (const v of later) recordValue(cumulative, v);
    assert.ok(cumulative.scale < previous.scale, 'the SDK lowered the scale as the range grew');
    const delta = subtractHistogram(cumulative, previous);
    assert.ok(delta !== undefined);
    assert.equal(delta.count, 3);
    assert.ok(Math.abs((delta.sum ?? 0) - (0.001 + 40 + 0.31)) < 1e-9);
    assert.equal(delta.min, 0.001); // the cumulative min moved: set by this interval
    assert.equal(delta.max, 40);
    const expected = later.map((v) => bucketIndex(v, delta.scale)).sort((a, b) => a - b);
    const got: number[] = [];
    delta.positive.counts.forEach((c, i) => {
      for (let k = 0; k < c; k++) got.push(delta.positive.offset + i);
    });
    assert.deepEqual(got, expected);
  });

  it('leaves min/max unknown when the cumulative extremes did not move', () => {
    const cumulative = histogramOf([0.1, 0.9]);
    const previous = cloneHistogram(cumulative);
    recordValue(cumulative, 0.5);
    const delta = subtractHistogram(cumulative, previous);
    assert.equal(delta?.min, undefined);
    assert.equal(delta?.max, undefined);
  });

  it('reports a reset when a count goes down', () => {
    const previous = histogramOf([0.1, 0.2, 0.3]);
    assert.equal(subtractHistogram(histogramOf([0.1]), previous), undefined);
    // Same total, different buckets: still not a continuation.
    assert.equal(subtractHistogram(histogramOf([5, 6, 7]), previous), undefined);
  });
});
