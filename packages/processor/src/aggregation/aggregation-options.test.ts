import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_AGGREGATION_OPTIONS, resolveAggregationOptions } from './aggregation-options.ts';

describe('aggregation options', () => {
  it('defaults to a 5-minute window in 10-second slices', () => {
    assert.deepEqual(resolveAggregationOptions(), DEFAULT_AGGREGATION_OPTIONS);
    assert.equal(resolveAggregationOptions({ windowSeconds: 60 }).streamTtlSeconds, 120);
  });

  it('names the option and what it must be', () => {
    assert.throws(
      () => resolveAggregationOptions({ windowSeconds: 0 }),
      /"windowSeconds" must be a positive whole number, got 0/,
    );
    assert.throws(() => resolveAggregationOptions({ windowSeconds: 65 }), /whole number of slices of 10 s/);
    assert.throws(
      () => resolveAggregationOptions({ streamTtlSeconds: 30 }),
      /"streamTtlSeconds" \(30\) must be at least the window/,
    );
  });
});
