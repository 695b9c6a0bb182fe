import { bucketIndex, MAX_SCALE } from './exponential-mapping.ts';

/** Contiguous bucket counts: `counts[i]` is the count of bucket `offset + i`. */
export interface Buckets {
  offset: number;
  counts: number[];
}

/**
 * An OTLP exponential histogram in the processor's own terms (counts as numbers). Mutable on purpose:
 * window accumulators merge into it in place. `min`/`max` are exact when defined, and `undefined`
 * when not known (e.g. a delta taken from cumulative points whose extremes did not move).
 */
export interface ExponentialHistogram {
  scale: number;
  count: number;
  sum: number | undefined;
  min: number | undefined;
  max: number | undefined;
  zeroCount: number;
  zeroThreshold: number;
  positive: Buckets;
  negative: Buckets;
}

/** Default bucket budget per sign, as in the OpenTelemetry SDKs. */
export const DEFAULT_MAX_BUCKETS = 160;

export function emptyHistogram(scale = MAX_SCALE): ExponentialHistogram {
  return {
    scale,
    count: 0,
    sum: 0,
    min: undefined,
    max: undefined,
    zeroCount: 0,
    zeroThreshold: 0,
    positive: { offset: 0, counts: [] },
    negative: { offset: 0, counts: [] },
  };
}

export function cloneHistogram(h: ExponentialHistogram): ExponentialHistogram {
  return {
    ...h,
    positive: { offset: h.positive.offset, counts: h.positive.counts.slice() },
    negative: { offset: h.negative.offset, counts: h.negative.counts.slice() },
  };
}

function copyCounts(into: number[], from: readonly number[]): number[] {
  if (into.length !== from.length) return from.slice();
  for (let i = 0; i < from.length; i++) into[i] = from[i] as number;
  return into;
}

/**
 * Makes `target` equal to `source`, reusing `target`'s bucket arrays when they have the right
 * length. For state kept across requests: copying into long-lived arrays lets the decoded ones die
 * young instead of being promoted and collected later at a higher cost.
 */
export function copyHistogramInto(target: ExponentialHistogram, source: ExponentialHistogram): void {
  target.scale = source.scale;
  target.count = source.count;
  target.sum = source.sum;
  target.min = source.min;
  target.max = source.max;
  target.zeroCount = source.zeroCount;
  target.zeroThreshold = source.zeroThreshold;
  target.positive.offset = source.positive.offset;
  target.positive.counts = copyCounts(target.positive.counts, source.positive.counts);
  target.negative.offset = source.negative.offset;
  target.negative.counts = copyCounts(target.negative.counts, source.negative.counts);
}

/** Index of the first and last non-zero bucket, or `undefined` when every count is zero. */
export function occupiedRange(b: Buckets): { first: number; last: number } | undefined {
  const counts = b.counts;
  let start = 0;
  while (start < counts.length && counts[start] === 0) start++;
  if (start === counts.length) return undefined;
  let end = counts.length - 1;
  while (counts[end] === 0) end--;
  return { first: b.offset + start, last: b.offset + end };
}

/** Lowers the scale by `by` in place: bucket i becomes i >> by (floor division, negative indices too). */
export function downscaleBuckets(b: Buckets, by: number): void {
  if (by <= 0 || b.counts.length === 0) return;
  const range = occupiedRange(b);
  if (range === undefined) {
    b.offset = 0;
    b.counts = [];
    return;
  }
  const newOffset = range.first >> by;
  const merged = new Array<number>((range.last >> by) - newOffset + 1).fill(0);
  const counts = b.counts;
  for (let i = range.first - b.offset; i <= range.last - b.offset; i++) {
    const c = counts[i] as number;
    if (c === 0) continue;
    const at = ((b.offset + i) >> by) - newOffset;
    merged[at] = (merged[at] as number) + c;
  }
  b.offset = newOffset;
  b.counts = merged;
}

export function downscale(h: ExponentialHistogram, to: number): void {
  const by = h.scale - to;
  if (by <= 0) return;
  downscaleBuckets(h.positive, by);
  downscaleBuckets(h.negative, by);
  h.scale = to;
}

/** How many scale steps bucket range [first, last] must drop to fit in `maxBuckets`. */
export function stepsToFit(first: number, last: number, maxBuckets: number): number {
  let steps = 0;
  while ((last >> steps) - (first >> steps) + 1 > maxBuckets) steps++;
  return steps;
}

/** Adds `count` to bucket `index`, growing the array; the caller keeps the range within budget. */
export function addToBucket(b: Buckets, index: number, count: number): void {
  if (b.counts.length === 0) {
    b.offset = index;
    b.counts = [count];
    return;
  }
  if (index < b.offset) {
    const grow = b.offset - index;
    b.counts = new Array<number>(grow).fill(0).concat(b.counts);
    b.offset = index;
  } else if (index >= b.offset + b.counts.length) {
    const end = index - b.offset + 1;
    for (let i = b.counts.length; i < end; i++) b.counts.push(0);
  }
  const at = index - b.offset;
  b.counts[at] = (b.counts[at] as number) + count;
}

/**
 * Records `count` samples of `value`, lowering the scale whenever the bucket range would exceed
 * `maxBuckets` — what an SDK's exponential histogram aggregator does. Used for tests, benchmarks
 * and the conversion of explicit-bucket points.
 */
export function recordValue(
  h: ExponentialHistogram,
  value: number,
  count = 1,
  maxBuckets = DEFAULT_MAX_BUCKETS,
): void {
  if (count <= 0 || Number.isNaN(value)) return;
  h.count += count;
  if (h.sum !== undefined) h.sum += value * count;
  h.min = h.min === undefined ? value : Math.min(h.min, value);
  h.max = h.max === undefined ? value : Math.max(h.max, value);
  const magnitude = Math.abs(value);
  if (magnitude <= h.zeroThreshold || magnitude === 0) {
    h.zeroCount += count;
    return;
  }
  const b = value > 0 ? h.positive : h.negative;
  let index = bucketIndex(magnitude, h.scale);
  const range = occupiedRange(b);
  if (range !== undefined) {
    const steps = stepsToFit(Math.min(range.first, index), Math.max(range.last, index), maxBuckets);
    if (steps > 0) {
      downscale(h, h.scale - steps);
      index = bucketIndex(magnitude, h.scale);
    }
  }
  addToBucket(b, index, count);
}

export function histogramOf(values: Iterable<number>, scale = MAX_SCALE, maxBuckets = DEFAULT_MAX_BUCKETS) {
  const h = emptyHistogram(scale);
  for (const v of values) recordValue(h, v, 1, maxBuckets);
  return h;
}
