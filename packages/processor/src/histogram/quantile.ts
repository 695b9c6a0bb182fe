import type { ExponentialHistogram } from './exponential-histogram.ts';
import { lowerBoundary, representativeValue } from './exponential-mapping.ts';

// Quantiles of a histogram. The q-quantile of n samples sits at rank h = q·(n − 1) between the order
// statistics x⌊h⌋ and x⌈h⌉ (the "linear" definition of numpy and of Hyndman & Fan, type 7). Each
// order statistic is estimated by the representative value of the bucket that holds it, 2LU/(L+U),
// which is within (base − 1)/(base + 1) of every value in (L, U]; interpolating between the two
// estimates stays within that bound of some value between the two true order statistics.

/** Value estimate of the order statistic at 0-based `rank` (ascending). */
export function orderStatistic(h: ExponentialHistogram, rank: number): number {
  let estimate = locate(h, rank);
  if (h.min !== undefined) {
    if (rank === 0) return h.min;
    estimate = Math.max(estimate, h.min);
  }
  if (h.max !== undefined) {
    if (rank === h.count - 1) return h.max;
    estimate = Math.min(estimate, h.max);
  }
  return estimate;
}

function locate(h: ExponentialHistogram, rank: number): number {
  let seen = 0;
  // Ascending order: most negative first (the highest negative index), then zero, then positive.
  const neg = h.negative;
  for (let i = neg.counts.length - 1; i >= 0; i--) {
    seen += neg.counts[i] as number;
    if (rank < seen) return -bucketValue(neg.offset + i, h.scale);
  }
  seen += h.zeroCount;
  if (rank < seen) return 0;
  const pos = h.positive;
  for (let i = 0; i < pos.counts.length; i++) {
    seen += pos.counts[i] as number;
    if (rank < seen) return bucketValue(pos.offset + i, h.scale);
  }
  // Counts that do not add up to `count` (tolerated on input): the top of the highest bucket.
  const last = pos.counts.length > 0 ? pos.offset + pos.counts.length - 1 : undefined;
  return last === undefined ? 0 : bucketValue(last, h.scale);
}

function bucketValue(index: number, scale: number): number {
  return representativeValue(lowerBoundary(index, scale), lowerBoundary(index + 1, scale));
}

/** The q-quantile estimate (0 ≤ q ≤ 1), or `undefined` for an empty histogram. */
export function quantile(h: ExponentialHistogram, q: number): number | undefined {
  if (h.count <= 0 || Number.isNaN(q)) return undefined;
  const rank = Math.min(Math.max(q, 0), 1) * (h.count - 1);
  const below = Math.floor(rank);
  const lower = orderStatistic(h, below);
  const fraction = rank - below;
  if (fraction === 0) return lower;
  const upper = orderStatistic(h, below + 1);
  return lower + (upper - lower) * fraction;
}
