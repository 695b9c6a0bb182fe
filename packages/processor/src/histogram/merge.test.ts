import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyHistogram, histogramOf, recordValue } from './exponential-histogram.ts';
import { bucketIndex, relativeErrorAt } from './exponential-mapping.ts';
import { mergeAll, mergeInto } from './merge.ts';
import { quantile } from './quantile.ts';
import { assertQuantilesWithinBound } from './quantile-bound.test-helper.ts';
import { lognormalSamples, paretoSamples } from './random-samples.ts';

describe('merging exponential histograms', () => {
  it('equals the histogram of the union when scales and offsets differ', () => {
    const a = lognormalSamples(3000, 21, Math.log(0.2), 0.3); // narrow range: keeps a high scale
    const b = paretoSamples(3000, 22); // wide range: low scale
    const ha = histogramOf(a);
    const hb = histogramOf(b);
    assert.notEqual(ha.scale, hb.scale);
    const merged = mergeAll([ha, hb]);
    assert.equal(merged.count, 6000);
    assert.ok(merged.scale <= Math.min(ha.scale, hb.scale));
    // Bucket for bucket: each sample lands where its value maps at the merged scale.
    const expected = new Map<number, number>();
    for (const v of [...a, ...b]) {
      const i = bucketIndex(v, merged.scale);
      expected.set(i, (expected.get(i) ?? 0) + 1);
    }
    for (let i = 0; i < merged.positive.counts.length; i++) {
      assert.equal(merged.positive.counts[i], expected.get(merged.positive.offset + i) ?? 0);
    }
    assert.ok(Math.abs((merged.sum ?? 0) - [...a, ...b].reduce((s, v) => s + v, 0)) < 1e-6);
  });

  it('keeps quantiles within the bound of the merged scale (three instances)', () => {
    const parts = [lognormalSamples(4000, 31), paretoSamples(4000, 32), lognormalSamples(4000, 33, 0, 1.5)];
    const merged = mergeAll(parts.map((p, i) => histogramOf(p, 20 - 6 * i)));
    const all = parts.flat();
    assertQuantilesWithinBound(all, (q) => quantile(merged, q), relativeErrorAt(merged.scale), 'merged');
  });

  it('lowers the scale no further than the union of both ranges needs', () => {
    // The regression: a high-scale target compared with a low-scale source index by index.
    const narrow = histogramOf(lognormalSamples(400, 201, Math.log(0.3), 0.1)); // scale 7
    const wide = histogramOf(paretoSamples(400, 202, 1.1, 0.1)); // scale 4, 145 buckets
    assert.deepEqual([narrow.scale, wide.scale], [7, 4]);
    assert.equal(mergeAll([narrow, wide]).scale, 4);
    assert.equal(mergeAll([wide, narrow]).scale, 4);
  });

  it('respects the bucket budget by lowering the scale', () => {
    const merged = emptyHistogram();
    mergeInto(merged, histogramOf([0.001, 0.002]), 160);
    mergeInto(merged, histogramOf([900, 1000]), 160);
    assert.ok(merged.positive.counts.length <= 160);
    assert.equal(merged.count, 4);
  });

  it('merges negative buckets and zero buckets', () => {
    const merged = mergeAll([histogramOf([-1, -2, 0, 3]), histogramOf([-4, 0, 5], 5)]);
    assert.equal(merged.count, 7);
    assert.equal(merged.zeroCount, 2);
    assert.equal(
      merged.negative.counts.reduce((s, c) => s + c, 0),
      3,
    );
    assert.equal(quantile(merged, 0), -4);
    assert.equal(quantile(merged, 1), 5);
  });

  it('widens to the larger zero threshold, folding buckets below it into zero', () => {
    const fine = histogramOf([0.001, 0.002, 0.5]);
    const coarse = emptyHistogram();
    coarse.zeroThreshold = 0.01;
    recordValue(coarse, 0.004);
    recordValue(coarse, 1);
    const merged = mergeAll([fine, coarse]);
    assert.ok(merged.zeroThreshold >= 0.01);
    assert.equal(merged.zeroCount, 3); // 0.001, 0.002 (folded) and 0.004
    assert.equal(merged.count, 5);
    // The source histogram is untouched.
    assert.equal(fine.zeroCount, 0);
    assert.equal(fine.zeroThreshold, 0);
  });

  it('does not split a bucket that straddles the other side’s zero threshold', () => {
    const a = histogramOf([0.0101], 0); // scale 0: bucket (2^-7, 2^-6] = (0.0078, 0.0156]
    const b = emptyHistogram(0);
    b.zeroThreshold = 0.01;
    recordValue(b, 0.005);
    const merged = mergeAll([a, b]);
    assert.equal(merged.zeroThreshold, 2 ** -6);
    assert.equal(merged.zeroCount, 2);
  });

  it('drops exact min/max when a side does not know them', () => {
    const a = histogramOf([1, 2]);
    const b = histogramOf([3]);
    b.max = undefined;
    const merged = mergeAll([a, b]);
    assert.equal(merged.min, 1);
    assert.equal(merged.max, undefined);
  });
});
