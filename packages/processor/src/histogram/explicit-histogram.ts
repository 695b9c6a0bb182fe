import {
  DEFAULT_MAX_BUCKETS,
  type ExponentialHistogram,
  emptyHistogram,
  recordValue,
} from './exponential-histogram.ts';
import { MAX_SCALE, representativeValue } from './exponential-mapping.ts';

/**
 * An OTLP explicit-bucket histogram: `counts[i]` holds values in (bounds[i-1], bounds[i]], the first
 * bucket is (-∞, bounds[0]] and the last (bounds[last], +∞).
 */
export interface ExplicitHistogram {
  bounds: number[];
  counts: number[];
  count: number;
  sum: number | undefined;
  min: number | undefined;
  max: number | undefined;
}

function sameBounds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `current − previous` for cumulative points; `undefined` on a reset or a change of bucket layout. */
export function subtractExplicit(
  current: ExplicitHistogram,
  previous: ExplicitHistogram,
): ExplicitHistogram | undefined {
  if (!sameBounds(current.bounds, previous.bounds) || current.counts.length !== previous.counts.length) {
    return undefined;
  }
  const counts = new Array<number>(current.counts.length);
  for (let i = 0; i < counts.length; i++) {
    const d = (current.counts[i] as number) - (previous.counts[i] as number);
    if (d < 0) return undefined;
    counts[i] = d;
  }
  const count = current.count - previous.count;
  if (count < 0) return undefined;
  return {
    bounds: current.bounds,
    counts,
    count,
    sum: current.sum === undefined || previous.sum === undefined ? undefined : current.sum - previous.sum,
    min:
      current.min !== undefined && previous.min !== undefined && current.min < previous.min
        ? current.min
        : undefined,
    max:
      current.max !== undefined && previous.max !== undefined && current.max > previous.max
        ? current.max
        : undefined,
  };
}

/** Representative value of (lower, upper] and its worst relative error against values in it. */
function placement(lower: number, upper: number): { value: number; error: number } {
  if (lower >= 0) {
    if (upper === Number.POSITIVE_INFINITY) return { value: 2 * lower, error: 1 };
    return { value: representativeValue(lower, upper), error: (upper - lower) / (upper + lower) };
  }
  if (upper <= 0) {
    if (lower === Number.NEGATIVE_INFINITY) return { value: 2 * upper, error: 1 };
    const p = placement(-upper, -lower);
    return { value: -p.value, error: p.error };
  }
  return { value: 0, error: 1 };
}

/**
 * An explicit-bucket histogram as an exponential one, so that it merges with the rest of the window.
 *
 * Accuracy is coarser and is reported, not hidden: each bucket's samples are placed at the value that
 * minimises the worst relative error over the bucket, 2LU/(L+U), so a quantile is within
 * (U − L)/(U + L) of the truth for the widest non-empty bucket (compounded with the exponential
 * bucket's own bound). The open-ended buckets use the point's min/max when known; otherwise, and for
 * a bucket that spans zero, the bound is 100%. Typical latency layouts (0.005, 0.01, 0.025, 0.05, …)
 * give 33–43%; the exponential histograms the lanewatch instrumentation exports give about 0.3–3%.
 */
export function explicitToExponential(
  e: ExplicitHistogram,
  maxBuckets = DEFAULT_MAX_BUCKETS,
): { histogram: ExponentialHistogram; relativeError: number } {
  const h = emptyHistogram(MAX_SCALE);
  let error = 0;
  for (let i = 0; i < e.counts.length; i++) {
    const c = e.counts[i] as number;
    if (c === 0) continue;
    let lower = i === 0 ? Number.NEGATIVE_INFINITY : (e.bounds[i - 1] as number);
    let upper = i < e.bounds.length ? (e.bounds[i] as number) : Number.POSITIVE_INFINITY;
    if (e.min !== undefined && e.min > lower) lower = Math.min(e.min, upper);
    if (e.max !== undefined && e.max < upper) upper = Math.max(e.max, lower);
    // A bucket narrowed to a single value by min/max holds exactly that value.
    const p = lower === upper ? { value: upper, error: 0 } : placement(lower, upper);
    recordValue(h, p.value, c, maxBuckets);
    error = Math.max(error, p.error);
  }
  h.sum = e.sum;
  h.min = e.min;
  h.max = e.max;
  h.count = e.count;
  return { histogram: h, relativeError: error };
}
