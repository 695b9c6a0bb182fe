import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bucketIndex,
  lowerBoundary,
  MAX_SCALE,
  MIN_SCALE,
  relativeErrorAt,
  representativeValue,
  upperBoundary,
} from './exponential-mapping.ts';
import { seededRandom } from './random-samples.ts';

describe('exponential mapping', () => {
  it('puts an exact power of two in the bucket it closes (upper-inclusive)', () => {
    assert.equal(bucketIndex(1, 0), -1);
    assert.equal(bucketIndex(2, 0), 0);
    assert.equal(bucketIndex(4, 0), 1);
    assert.equal(bucketIndex(1, 3), -1);
    assert.equal(bucketIndex(2, 3), 7);
    assert.equal(bucketIndex(0.5, 20), -(1 << 20) - 1);
    assert.equal(bucketIndex(4, -1), 0);
    assert.equal(bucketIndex(5, -1), 1);
    assert.equal(bucketIndex(16, -1), 1);
    assert.equal(bucketIndex(17, -1), 2);
  });

  it('maps every value into (lower, upper] of its bucket at every scale', () => {
    const random = seededRandom(7);
    for (let scale = MIN_SCALE; scale <= MAX_SCALE; scale++) {
      for (let n = 0; n < 300; n++) {
        const value = 2 ** ((random() - 0.5) * 80);
        const index = bucketIndex(value, scale);
        const lower = lowerBoundary(index, scale);
        const upper = upperBoundary(index, scale);
        // Boundaries are computed in floating point: allow an ulp-sized slack at the edges.
        assert.ok(lower < value * (1 + 1e-12), `scale ${scale}: ${value} above lower ${lower}`);
        assert.ok(value <= upper * (1 + 1e-12), `scale ${scale}: ${value} ≤ upper ${upper}`);
      }
    }
  });

  it('handles subnormal and huge values without overflowing the index', () => {
    assert.ok(Number.isInteger(bucketIndex(Number.MIN_VALUE, MAX_SCALE)));
    assert.ok(Number.isInteger(bucketIndex(Number.MAX_VALUE, MAX_SCALE)));
    assert.ok(bucketIndex(Number.MAX_VALUE, MAX_SCALE) > bucketIndex(1e300, MAX_SCALE));
  });

  it('gives the representative value the advertised worst-case relative error', () => {
    for (const scale of [-2, 0, 3, 8, 20]) {
      const lower = lowerBoundary(5, scale);
      const upper = upperBoundary(5, scale);
      const rep = representativeValue(lower, upper);
      const worst = Math.max((rep - lower) / lower, (upper - rep) / upper);
      assert.ok(Math.abs(worst - relativeErrorAt(scale)) < 1e-9 * Math.max(1, worst));
    }
    // Scale 8 (the most Prometheus keeps): about 0.135%.
    assert.ok(relativeErrorAt(8) > 0.00135 && relativeErrorAt(8) < 0.00136);
  });
});
