import type { Distribution } from '../lane-observation.ts';

/**
 * A `Distribution` holding every sample: exact quantiles (linear interpolation between neighbouring
 * order statistics) and a relative error of 0. For tests, benchmarks and the demo, where the samples
 * are few and known; the running processor gets merged exponential histograms from aggregation.
 */
export function exactDistribution(samples: readonly number[]): Distribution {
  const sorted = Float64Array.from(samples).sort();
  const count = sorted.length;
  let sum = 0;
  for (const x of sorted) sum += x;
  return {
    count,
    sum: count === 0 ? undefined : sum,
    min: sorted[0],
    max: sorted[count - 1],
    relativeError: 0,
    quantile(q: number): number | undefined {
      if (count === 0) return undefined;
      const rank = Math.min(1, Math.max(0, q)) * (count - 1);
      const below = Math.floor(rank);
      const lower = sorted[below] as number;
      const upper = sorted[Math.min(count - 1, below + 1)] as number;
      return lower + (upper - lower) * (rank - below);
    },
  };
}
