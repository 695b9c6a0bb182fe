import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ExplicitHistogram, explicitToExponential, subtractExplicit } from './explicit-histogram.ts';
import { relativeErrorAt } from './exponential-mapping.ts';
import { HistogramDistribution } from './histogram-distribution.ts';
import { assertQuantilesWithinBound } from './quantile-bound.test-helper.ts';
import { lognormalSamples, paretoSamples } from './random-samples.ts';

/** The OpenTelemetry SDK default boundaries (in the unit of the samples). */
const DEFAULT_BOUNDS = [0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000];
/** The semantic conventions' advice for gen_ai durations, in seconds. */
const GEN_AI_BOUNDS = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

function explicitOf(samples: readonly number[], bounds: number[]): ExplicitHistogram {
  const counts = new Array<number>(bounds.length + 1).fill(0);
  for (const v of samples) {
    let i = bounds.findIndex((b) => v <= b);
    if (i < 0) i = bounds.length;
    counts[i] = (counts[i] as number) + 1;
  }
  return {
    bounds,
    counts,
    count: samples.length,
    sum: samples.reduce((s, v) => s + v, 0),
    min: Math.min(...samples),
    max: Math.max(...samples),
  };
}

describe('explicit-bucket histograms', () => {
  for (const [name, samples, bounds] of [
    ['lognormal, gen_ai advice buckets', lognormalSamples(10_000, 41), GEN_AI_BOUNDS],
    ['pareto (ms), SDK default buckets', paretoSamples(10_000, 42, 1.2, 20), DEFAULT_BOUNDS],
  ] as const) {
    it(`estimates quantiles within the reported, coarser bound: ${name}`, () => {
      const { histogram, relativeError } = explicitToExponential(explicitOf(samples, [...bounds]));
      const d = new HistogramDistribution(histogram, relativeError);
      assert.ok(d.relativeError > relativeErrorAt(histogram.scale), 'coarser than exponential buckets');
      assert.ok(d.relativeError <= 1.01);
      assert.equal(d.count, samples.length);
      assertQuantilesWithinBound(samples, (q) => d.quantile(q), d.relativeError, name);
    });
  }

  it('reports the doubling layout of the gen_ai advice as a 1/3 bound', () => {
    const samples = [0.03, 0.05, 0.07, 0.1, 0.3, 0.5];
    const { relativeError } = explicitToExponential({ ...explicitOf(samples, GEN_AI_BOUNDS), min: 0.021 });
    assert.ok(Math.abs(relativeError - 1 / 3) < 1e-9, `${relativeError}`);
  });

  it('subtracts cumulative points and detects resets and layout changes', () => {
    const previous = explicitOf([0.05, 0.5], GEN_AI_BOUNDS);
    const current = explicitOf([0.05, 0.5, 0.03, 3], GEN_AI_BOUNDS);
    const delta = subtractExplicit(current, previous);
    assert.equal(delta?.count, 2);
    assert.equal(
      delta?.counts.reduce((s, c) => s + c, 0),
      2,
    );
    assert.equal(subtractExplicit(previous, current), undefined);
    assert.equal(subtractExplicit(explicitOf([1, 2, 3], [1, 2]), previous), undefined);
  });
});
