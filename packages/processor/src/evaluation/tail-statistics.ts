import type { Distribution } from '../lane-observation.ts';

/**
 * Wilson score interval, lower end: with `successes` of `trials` seen, the true proportion is above
 * this value with one-sided confidence Φ(z) (z = 4: about 1 − 3·10⁻⁵). The evaluation only skips its
 * "N consecutive evaluations" hysteresis on evidence this strong, so noise on a heavy tail never can.
 */
export function wilsonLowerBound(successes: number, trials: number, z: number): number {
  if (trials <= 0) return 0;
  const p = Math.min(1, Math.max(0, successes / trials));
  const z2 = z * z;
  const centre = p + z2 / (2 * trials);
  const spread = z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return Math.max(0, (centre - spread) / (1 + z2 / trials));
}

/**
 * Fraction of a distribution's samples above `x`, found by bisection on `quantile` (the contract has
 * no CDF). Exact to the distribution's own quantile resolution; 24 steps resolve 1 sample in 10⁷.
 */
export function fractionAbove(distribution: Distribution, x: number): number {
  if (distribution.count === 0) return 0;
  const top = distribution.quantile(1);
  if (top === undefined || top <= x) return 0;
  const bottom = distribution.quantile(0);
  if (bottom !== undefined && bottom > x) return 1;
  let lo = 0;
  let hi = 1;
  for (let step = 0; step < 24; step++) {
    const mid = (lo + hi) / 2;
    const value = distribution.quantile(mid);
    if (value !== undefined && value <= x) lo = mid;
    else hi = mid;
  }
  return 1 - lo;
}
