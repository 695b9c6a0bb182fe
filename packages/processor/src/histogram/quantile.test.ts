import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { histogramOf } from './exponential-histogram.ts';
import { relativeErrorAt } from './exponential-mapping.ts';
import { quantile } from './quantile.ts';
import { assertQuantilesWithinBound } from './quantile-bound.test-helper.ts';
import { lognormalSamples, paretoSamples, seededRandom } from './random-samples.ts';

describe('quantile estimation', () => {
  for (const [name, samples] of [
    ['lognormal', lognormalSamples(20_000, 11)],
    ['pareto α=1.2', paretoSamples(20_000, 12)],
    ['pareto α=0.8 (infinite mean)', paretoSamples(20_000, 13, 0.8)],
  ] as const) {
    for (const maxBuckets of [160, 40]) {
      it(`stays within the relative-error bound on ${name} samples (${maxBuckets} buckets)`, () => {
        const h = histogramOf(samples, 20, maxBuckets);
        const bound = relativeErrorAt(h.scale);
        assertQuantilesWithinBound(samples, (q) => quantile(h, q), bound, name);
      });
    }
  }

  it('orders negative buckets, the zero bucket and positive buckets', () => {
    const random = seededRandom(3);
    const samples = Array.from({ length: 5000 }, () => {
      const r = random();
      return r < 0.1 ? 0 : r < 0.4 ? -Math.exp(random() * 4) : Math.exp(random() * 6 - 3);
    });
    const h = histogramOf(samples);
    assertQuantilesWithinBound(samples, (q) => quantile(h, q), relativeErrorAt(h.scale), 'mixed signs');
  });

  it('returns exact min and max at the ends and undefined when empty', () => {
    const h = histogramOf([0.3, 0.1, 0.2]);
    assert.equal(quantile(h, 0), 0.1);
    assert.equal(quantile(h, 1), 0.3);
    assert.equal(quantile(histogramOf([]), 0.5), undefined);
  });
});
