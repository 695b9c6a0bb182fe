import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { downscaleBuckets, histogramOf, occupiedRange, recordValue } from './exponential-histogram.ts';
import { bucketIndex } from './exponential-mapping.ts';
import { lognormalSamples } from './random-samples.ts';

describe('exponential histogram', () => {
  it('lowers its scale like an SDK so that the range fits the bucket budget', () => {
    const h = histogramOf([0.001, 1000], 20, 160);
    const range = occupiedRange(h.positive);
    assert.ok(range !== undefined && range.last - range.first + 1 <= 160);
    assert.equal(h.scale, 3);
    assert.equal(h.count, 2);
    assert.equal(h.min, 0.001);
    assert.equal(h.max, 1000);
  });

  it('keeps every sample in the bucket its value maps to at the final scale', () => {
    const samples = lognormalSamples(5000, 1);
    const h = histogramOf(samples);
    const expected = new Map<number, number>();
    for (const v of samples) {
      const i = bucketIndex(v, h.scale);
      expected.set(i, (expected.get(i) ?? 0) + 1);
    }
    for (const [i, c] of expected) assert.equal(h.positive.counts[i - h.positive.offset], c);
  });

  it('downscales negative indices by floor division', () => {
    const b = { offset: -3, counts: [1, 1, 1, 1, 1, 1] }; // indices -3 … 2
    downscaleBuckets(b, 1);
    assert.deepEqual(b, { offset: -2, counts: [1, 2, 2, 1] }); // -3→-2, -2,-1→-1, 0,1→0, 2→1
  });

  it('counts zeros and values under the zero threshold in the zero bucket', () => {
    const h = histogramOf([0, 0, 1]);
    assert.equal(h.zeroCount, 2);
    const t = histogramOf([]);
    t.zeroThreshold = 0.01;
    recordValue(t, 0.005);
    recordValue(t, -0.002);
    assert.equal(t.zeroCount, 2);
  });
});
