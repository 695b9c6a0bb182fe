import {
  type Buckets,
  DEFAULT_MAX_BUCKETS,
  downscale,
  type ExponentialHistogram,
  emptyHistogram,
  occupiedRange,
  stepsToFit,
} from './exponential-histogram.ts';
import { MAX_SCALE } from './exponential-mapping.ts';
import { cloneIfWider, commonZeroThreshold, widenZeroThreshold } from './zero-threshold.ts';

/** Further scale steps, below the common scale, for both sides' buckets to fit together. */
function combinedSteps(
  target: Buckets,
  targetShift: number,
  source: Buckets,
  sourceShift: number,
  maxBuckets: number,
): number {
  const t = occupiedRange(target);
  const s = occupiedRange(source);
  if (s === undefined)
    return t === undefined ? 0 : stepsToFit(t.first >> targetShift, t.last >> targetShift, maxBuckets);
  const first = s.first >> sourceShift;
  const last = s.last >> sourceShift;
  if (t === undefined) return stepsToFit(first, last, maxBuckets);
  return stepsToFit(
    Math.min(t.first >> targetShift, first),
    Math.max(t.last >> targetShift, last),
    maxBuckets,
  );
}

function addBuckets(target: Buckets, source: Buckets, shift: number): void {
  const range = occupiedRange(source);
  if (range === undefined) return;
  const first = range.first >> shift;
  const last = range.last >> shift;
  if (target.counts.length === 0) {
    target.offset = first;
    target.counts = new Array<number>(last - first + 1).fill(0);
  } else {
    if (first < target.offset) {
      target.counts = new Array<number>(target.offset - first).fill(0).concat(target.counts);
      target.offset = first;
    }
    const end = last - target.offset + 1;
    for (let i = target.counts.length; i < end; i++) target.counts.push(0);
  }
  const tc = target.counts;
  const sc = source.counts;
  const base = source.offset;
  const to = target.offset;
  if (shift === 0) {
    for (let i = range.first - base; i <= range.last - base; i++) {
      const at = base + i - to;
      tc[at] = (tc[at] as number) + (sc[i] as number);
    }
  } else {
    for (let i = range.first - base; i <= range.last - base; i++) {
      const c = sc[i] as number;
      if (c === 0) continue;
      const at = ((base + i) >> shift) - to;
      tc[at] = (tc[at] as number) + c;
    }
  }
}

/**
 * Adds `source` into `target` in place. The result has the lower of the two scales, lowered further
 * until both signs fit in `maxBuckets`, and the larger zero threshold (see zero-threshold.ts).
 * `source` is never modified. min/max stay exact only when both sides know them.
 */
export function mergeInto(
  target: ExponentialHistogram,
  source: ExponentialHistogram,
  maxBuckets = DEFAULT_MAX_BUCKETS,
): void {
  if (source.count === 0 && source.zeroCount === 0) return;
  if (target.zeroThreshold !== source.zeroThreshold) {
    const threshold = commonZeroThreshold(target, source);
    widenZeroThreshold(target, threshold);
    source = cloneIfWider(source, threshold);
  }
  let scale = Math.min(target.scale, source.scale);
  const steps = Math.max(
    combinedSteps(target.positive, target.scale - scale, source.positive, source.scale - scale, maxBuckets),
    combinedSteps(target.negative, target.scale - scale, source.negative, source.scale - scale, maxBuckets),
  );
  // Steps were counted at `scale`; the index shift composes, so lowering by `steps` more fits both.
  scale -= steps;
  downscale(target, scale);
  addBuckets(target.positive, source.positive, source.scale - scale);
  addBuckets(target.negative, source.negative, source.scale - scale);
  const empty = target.count === 0;
  target.count += source.count;
  target.zeroCount += source.zeroCount;
  target.sum = target.sum === undefined || source.sum === undefined ? undefined : target.sum + source.sum;
  target.min = empty ? source.min : minOf(target.min, source.min);
  target.max = empty ? source.max : maxOf(target.max, source.max);
}

function minOf(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : Math.min(a, b);
}

function maxOf(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : Math.max(a, b);
}

/** A new histogram holding the sum of `histograms`. */
export function mergeAll(
  histograms: Iterable<ExponentialHistogram>,
  maxBuckets = DEFAULT_MAX_BUCKETS,
): ExponentialHistogram {
  const total = emptyHistogram(MAX_SCALE);
  for (const h of histograms) mergeInto(total, h, maxBuckets);
  return total;
}
