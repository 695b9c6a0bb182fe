import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exactDistribution } from './exact-distribution.ts';
import { fractionAbove, wilsonLowerBound } from './tail-statistics.ts';

describe('wilsonLowerBound', () => {
  it('stays below the observed proportion and closes on it as trials grow', () => {
    const small = wilsonLowerBound(10, 20, 4);
    const large = wilsonLowerBound(1000, 2000, 4);
    assert.ok(small < 0.5 && large < 0.5);
    assert.ok(large > small);
    assert.ok(large > 0.45);
  });

  it('is 0 with no trials or no successes', () => {
    assert.equal(wilsonLowerBound(0, 0, 4), 0);
    assert.equal(wilsonLowerBound(0, 100, 4), 0);
  });

  it('does not call 3 slow calls in 100 evidence that over 5 % are slow', () => {
    assert.ok(wilsonLowerBound(3, 100, 4) < 0.05);
    assert.ok(wilsonLowerBound(60, 100, 4) > 0.05);
  });
});

describe('fractionAbove', () => {
  const d = exactDistribution(Array.from({ length: 100 }, (_, i) => i + 1));

  it('counts the samples above a value', () => {
    assert.ok(Math.abs(fractionAbove(d, 90) - 0.1) < 0.011);
    assert.ok(Math.abs(fractionAbove(d, 50.5) - 0.5) < 0.011);
  });

  it('is 0 above the maximum and 1 below the minimum', () => {
    assert.equal(fractionAbove(d, 100), 0);
    assert.equal(fractionAbove(d, 0.5), 1);
    assert.equal(fractionAbove(exactDistribution([]), 1), 0);
  });
});
