import assert from 'node:assert/strict';

// Test helpers: the exact quantiles of samples and the relative-error assertion every quantile test uses.

/** True order statistics around the q-quantile (rank q·(n − 1)) of `sorted`. */
export function exactQuantileRange(sorted: readonly number[], q: number): { lower: number; upper: number } {
  const rank = q * (sorted.length - 1);
  return { lower: sorted[Math.floor(rank)] as number, upper: sorted[Math.ceil(rank)] as number };
}

/**
 * Whether `estimate` is within `bound` (relative) of some value between the two true order statistics.
 * A relative slack of 1e-9 absorbs floating-point rounding of the boundaries themselves.
 */
export function withinRelativeError(
  estimate: number,
  range: { lower: number; upper: number },
  bound: number,
): boolean {
  const slack = 1 + 1e-9;
  if (estimate >= range.lower && estimate <= range.upper) return true;
  const nearest = estimate < range.lower ? range.lower : range.upper;
  if (nearest === 0) return estimate === 0;
  return Math.abs(estimate - nearest) <= bound * Math.abs(nearest) * slack;
}

const QS = [0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1];

/** Asserts every quantile of a standard set is within `bound` of the exact quantile of `samples`. */
export function assertQuantilesWithinBound(
  samples: readonly number[],
  estimate: (q: number) => number | undefined,
  bound: number,
  label: string,
): void {
  const sorted = samples.slice().sort((a, b) => a - b);
  for (const q of QS) {
    const e = estimate(q);
    assert.ok(e !== undefined, `${label}: q=${q} has an estimate`);
    const range = exactQuantileRange(sorted, q);
    assert.ok(
      withinRelativeError(e, range, bound),
      `${label}: q=${q} estimate ${e} not within ${bound} of [${range.lower}, ${range.upper}]`,
    );
  }
}
