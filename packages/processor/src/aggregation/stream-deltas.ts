import { type ExplicitHistogram, subtractExplicit } from '../histogram/explicit-histogram.ts';
import {
  cloneHistogram,
  copyHistogramInto,
  type ExponentialHistogram,
} from '../histogram/exponential-histogram.ts';
import { subtractHistogram } from '../histogram/subtract.ts';
import type { HistogramPoint } from '../otlp/histogram-point.ts';

// Cumulative points → what each one adds, per stream (resource + scope + metric + attributes).
//
// The first point of a stream is all new when its start time lies inside the window: the process
// (or its instrument) started recently, so everything it counted happened within the window. When
// the start is older, the processor cannot tell which part of the total is recent, so the point
// becomes the baseline and the stream contributes from its next point on (after a processor restart,
// long-lived apps take one export interval to show up; nothing old is counted as new).
//
// A reset — a new start time, or a count or bucket that went down (a restart that kept its start
// time) — makes the whole point new: it counts from zero since the restart.
//
// Delta points need no state and pass through unchanged.

export type PointData = HistogramPoint['data'];

export type DeltaOutcome =
  | { readonly kind: 'new'; readonly data: PointData }
  /** Baseline, duplicate or out-of-order point: nothing to add. */
  | { readonly kind: 'none' }
  /** The stream cap is reached and this stream is not known. */
  | { readonly kind: 'refused' };

interface StreamState {
  startTimeMs: number;
  timeMs: number;
  data: PointData;
  seenMs: number;
}

export interface StreamDeltaCounters {
  firstPoints: number;
  baselines: number;
  resets: number;
  outOfOrder: number;
  evicted: number;
}

const NONE: DeltaOutcome = { kind: 'none' };
const REFUSED: DeltaOutcome = { kind: 'refused' };

function subtract(current: PointData, previous: PointData): PointData | undefined {
  if (current.kind === 'exponential' && previous.kind === 'exponential') {
    const histogram = subtractHistogram(current.histogram, previous.histogram);
    return histogram && { kind: 'exponential', histogram };
  }
  if (current.kind === 'explicit' && previous.kind === 'explicit') {
    const histogram = subtractExplicit(current.histogram, previous.histogram);
    return histogram && { kind: 'explicit', histogram };
  }
  return undefined; // the stream changed aggregation: a reset
}

/** A copy of `data` for the stream state, reusing the arrays of `previous` where it can. */
function keep(data: PointData, previous: PointData | undefined): PointData {
  if (data.kind === 'exponential') {
    if (previous?.kind === 'exponential') {
      copyHistogramInto(previous.histogram, data.histogram);
      return previous;
    }
    return { kind: 'exponential', histogram: cloneHistogram(data.histogram) };
  }
  const h = data.histogram;
  return { kind: 'explicit', histogram: { ...h, bounds: h.bounds.slice(), counts: h.counts.slice() } };
}

function isEmpty(data: PointData): boolean {
  return (data.histogram as ExponentialHistogram | ExplicitHistogram).count === 0;
}

export class StreamDeltas {
  readonly #streams = new Map<string, StreamState>();
  readonly #maxStreams: number;
  readonly #windowMs: number;
  readonly #ttlMs: number;
  readonly counters: StreamDeltaCounters = {
    firstPoints: 0,
    baselines: 0,
    resets: 0,
    outOfOrder: 0,
    evicted: 0,
  };

  constructor(options: { maxStreams: number; windowMs: number; ttlMs: number }) {
    this.#maxStreams = options.maxStreams;
    this.#windowMs = options.windowMs;
    this.#ttlMs = options.ttlMs;
  }

  get size(): number {
    return this.#streams.size;
  }

  /** What `point` adds to its stream at processor time `now` (epoch ms). */
  deltaOf(point: HistogramPoint, now: number): DeltaOutcome {
    if (point.temporality === 'delta') return isEmpty(point.data) ? NONE : { kind: 'new', data: point.data };
    const state = this.#streams.get(point.stream);
    if (state === undefined) {
      if (this.#streams.size >= this.#maxStreams) {
        this.evictStale(now);
        if (this.#streams.size >= this.#maxStreams) return REFUSED;
      }
      this.#streams.set(point.stream, {
        startTimeMs: point.startTimeMs,
        timeMs: point.timeMs,
        data: keep(point.data, undefined),
        seenMs: now,
      });
      const recent = point.startTimeMs > 0 && point.startTimeMs >= now - this.#windowMs;
      if (recent) this.counters.firstPoints++;
      else this.counters.baselines++;
      return recent && !isEmpty(point.data) ? { kind: 'new', data: point.data } : NONE;
    }
    state.seenMs = now;
    if (point.timeMs <= state.timeMs && point.startTimeMs === state.startTimeMs) {
      this.counters.outOfOrder++;
      return NONE;
    }
    const restarted = point.startTimeMs !== state.startTimeMs;
    const delta = restarted ? undefined : subtract(point.data, state.data);
    state.startTimeMs = point.startTimeMs;
    state.timeMs = point.timeMs;
    state.data = keep(point.data, state.data);
    if (delta === undefined) {
      this.counters.resets++;
      return isEmpty(point.data) ? NONE : { kind: 'new', data: point.data };
    }
    return isEmpty(delta) ? NONE : { kind: 'new', data: delta };
  }

  /** Forgets streams not heard from within the time-to-live. */
  evictStale(now: number): void {
    const horizon = now - this.#ttlMs;
    for (const [key, state] of this.#streams) {
      if (state.seenMs < horizon) {
        this.#streams.delete(key);
        this.counters.evicted++;
      }
    }
  }
}
