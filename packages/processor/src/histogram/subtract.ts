import {
  type Buckets,
  cloneHistogram,
  downscale,
  type ExponentialHistogram,
} from './exponential-histogram.ts';
import { commonZeroThreshold, widenZeroThreshold } from './zero-threshold.ts';

// The delta between two cumulative points of one stream: what was recorded between them. SDKs lower
// a cumulative histogram's scale as its range grows, so the earlier point is brought to the later
// one's scale (and zero threshold) before the buckets are subtracted.

function subtractBuckets(current: Buckets, previous: Buckets): Buckets | undefined {
  const counts = current.counts.slice();
  let offset = current.offset;
  const prev = previous.counts;
  for (let i = 0; i < prev.length; i++) {
    const c = prev[i] as number;
    if (c === 0) continue;
    const at = previous.offset + i - offset;
    if (at < 0 || at >= counts.length) return undefined; // a bucket the later point no longer has
    const left = (counts[at] as number) - c;
    if (left < 0) return undefined;
    counts[at] = left;
  }
  let start = 0;
  while (start < counts.length && counts[start] === 0) start++;
  offset += start;
  return { offset, counts: start > 0 ? counts.slice(start) : counts };
}

/**
 * `current − previous`, or `undefined` when the difference is negative somewhere: the stream was
 * reset (its process restarted) and `current` counts from zero again.
 */
export function subtractHistogram(
  current: ExponentialHistogram,
  previous: ExponentialHistogram,
): ExponentialHistogram | undefined {
  if (current.count < previous.count || current.zeroCount < previous.zeroCount) return undefined;
  if (current.scale !== previous.scale || current.zeroThreshold !== previous.zeroThreshold) {
    const threshold = commonZeroThreshold(current, previous);
    const scale = Math.min(current.scale, previous.scale);
    const c = cloneHistogram(current);
    const p = cloneHistogram(previous);
    downscale(c, scale);
    downscale(p, scale);
    widenZeroThreshold(c, threshold);
    widenZeroThreshold(p, threshold);
    current = c;
    previous = p;
  }
  const zeroCount = current.zeroCount - previous.zeroCount;
  if (zeroCount < 0) return undefined;
  const positive = subtractBuckets(current.positive, previous.positive);
  const negative = subtractBuckets(current.negative, previous.negative);
  if (positive === undefined || negative === undefined) return undefined;
  return {
    scale: current.scale,
    count: current.count - previous.count,
    sum: current.sum === undefined || previous.sum === undefined ? undefined : current.sum - previous.sum,
    // A cumulative extreme that moved was set by a sample in this interval; one that did not says
    // nothing about the interval's own extreme.
    min:
      current.min !== undefined && previous.min !== undefined && current.min < previous.min
        ? current.min
        : undefined,
    max:
      current.max !== undefined && previous.max !== undefined && current.max > previous.max
        ? current.max
        : undefined,
    zeroCount,
    zeroThreshold: current.zeroThreshold,
    positive,
    negative,
  };
}
