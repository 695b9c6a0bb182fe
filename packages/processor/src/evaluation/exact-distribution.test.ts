import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exactDistribution } from './exact-distribution.ts';

describe('exactDistribution', () => {
  it('interpolates between order statistics and reports count, sum, min and max', () => {
    const d = exactDistribution([4, 1, 3, 2, 5]);
    assert.equal(d.count, 5);
    assert.equal(d.sum, 15);
    assert.equal(d.min, 1);
    assert.equal(d.max, 5);
    assert.equal(d.quantile(0), 1);
    assert.equal(d.quantile(0.5), 3);
    assert.equal(d.quantile(0.95), 4.8);
    assert.equal(d.quantile(1), 5);
    assert.equal(d.relativeError, 0);
  });

  it('answers undefined when it holds no samples', () => {
    const d = exactDistribution([]);
    assert.equal(d.count, 0);
    assert.equal(d.quantile(0.5), undefined);
    assert.equal(d.sum, undefined);
  });
});
