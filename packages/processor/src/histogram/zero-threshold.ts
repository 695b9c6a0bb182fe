import type { Buckets, ExponentialHistogram } from './exponential-histogram.ts';
import { bucketIndex, lowerBoundary, upperBoundary } from './exponential-mapping.ts';

// The zero bucket holds every sample whose magnitude is at most `zeroThreshold` (OTLP
// ExponentialHistogramDataPoint.zero_threshold). Two histograms with different thresholds only
// combine at the larger one; a bucket that straddles it cannot be split, so — as Prometheus does for
// native histograms — the threshold grows to that bucket's upper boundary and the bucket joins zero.

function straddled(b: Buckets, threshold: number, scale: number): number | undefined {
  if (threshold <= 0 || b.counts.length === 0) return undefined;
  const index = bucketIndex(threshold, scale);
  const count = b.counts[index - b.offset];
  if (count === undefined || count === 0) return undefined;
  return lowerBoundary(index, scale) < threshold && threshold < upperBoundary(index, scale)
    ? upperBoundary(index, scale)
    : undefined;
}

/** The threshold both histograms can be widened to without splitting a bucket. */
export function commonZeroThreshold(a: ExponentialHistogram, b: ExponentialHistogram): number {
  let threshold = Math.max(a.zeroThreshold, b.zeroThreshold);
  for (;;) {
    const widened =
      straddled(a.positive, threshold, a.scale) ??
      straddled(a.negative, threshold, a.scale) ??
      straddled(b.positive, threshold, b.scale) ??
      straddled(b.negative, threshold, b.scale);
    if (widened === undefined) return threshold;
    threshold = widened;
  }
}

function foldBuckets(b: Buckets, threshold: number, scale: number): number {
  let folded = 0;
  let drop = 0;
  while (drop < b.counts.length && upperBoundary(b.offset + drop, scale) <= threshold) {
    folded += b.counts[drop] as number;
    drop++;
  }
  if (drop > 0) {
    b.counts = b.counts.slice(drop);
    b.offset += drop;
  }
  return folded;
}

/** Raises `h.zeroThreshold` to `threshold` in place, moving every bucket under it into the zero count. */
export function widenZeroThreshold(h: ExponentialHistogram, threshold: number): void {
  if (threshold <= h.zeroThreshold) return;
  h.zeroCount += foldBuckets(h.positive, threshold, h.scale) + foldBuckets(h.negative, threshold, h.scale);
  h.zeroThreshold = threshold;
}

/** `h` itself when its threshold is already `threshold`, else a copy widened to it. */
export function cloneIfWider(h: ExponentialHistogram, threshold: number): ExponentialHistogram {
  if (h.zeroThreshold >= threshold) return h;
  const copy: ExponentialHistogram = {
    ...h,
    positive: { offset: h.positive.offset, counts: h.positive.counts },
    negative: { offset: h.negative.offset, counts: h.negative.counts },
  };
  // foldBuckets replaces `counts` with a slice rather than mutating it, so sharing the arrays is safe.
  widenZeroThreshold(copy, threshold);
  return copy;
}
