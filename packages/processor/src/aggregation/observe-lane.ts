import { MILESTONES, type Milestone } from '@lanewatch/instrumentation';
import { HistogramDistribution } from '../histogram/histogram-distribution.ts';
import type { Distribution, LaneObservation } from '../lane-observation.ts';
import {
  type Accumulator,
  accumulate,
  addCallCounts,
  type CallCounts,
  emptyAccumulator,
  emptyCallCounts,
  type LaneSlice,
} from './lane-slice.ts';

// Slices of one lane → its observations: the lane as a whole and one per size class seen.

interface Totals {
  readonly ok: Map<Milestone, Accumulator>;
  readonly all: Map<Milestone, Accumulator>;
  tokensPerSecond: Accumulator | undefined;
  readonly calls: CallCounts;
}

function emptyTotals(): Totals {
  return { ok: new Map(), all: new Map(), tokensPerSecond: undefined, calls: emptyCallCounts() };
}

function into(map: Map<Milestone, Accumulator>, milestone: Milestone): Accumulator {
  let acc = map.get(milestone);
  if (acc === undefined) {
    acc = emptyAccumulator();
    map.set(milestone, acc);
  }
  return acc;
}

function distributions(map: Map<Milestone, Accumulator>): Partial<Record<Milestone, Distribution>> {
  const out: Partial<Record<Milestone, Distribution>> = {};
  for (const milestone of MILESTONES) {
    const acc = map.get(milestone);
    if (acc !== undefined && acc.histogram.count > 0) {
      out[milestone] = new HistogramDistribution(acc.histogram, acc.extraRelativeError);
    }
  }
  return out;
}

export interface ObservationFrame {
  readonly lane: string;
  readonly windowSeconds: number;
  readonly windowEnd: number;
  readonly maxBuckets: number;
}

/** The lane's observation (first) and one per size class, in `SIZE_CLASSES`-agnostic sorted order. */
export function observeLane(slices: readonly LaneSlice[], frame: ObservationFrame): LaneObservation[] {
  const { maxBuckets } = frame;
  const bySize = new Map<string, Totals>();
  const totalsOf = (sizeClass: string) => {
    let t = bySize.get(sizeClass);
    if (t === undefined) {
      t = emptyTotals();
      bySize.set(sizeClass, t);
    }
    return t;
  };
  const models = new Set<string>();
  const providers = new Set<string>();
  for (const slice of slices) {
    for (const { key, acc } of slice.milestones.values()) {
      const t = totalsOf(key.sizeClass);
      accumulate(into(t.all, key.milestone), acc, maxBuckets);
      if (key.ok) accumulate(into(t.ok, key.milestone), acc, maxBuckets);
    }
    for (const [sizeClass, acc] of slice.tokensPerSecond) {
      const t = totalsOf(sizeClass);
      if (t.tokensPerSecond === undefined) t.tokensPerSecond = emptyAccumulator();
      accumulate(t.tokensPerSecond, acc, maxBuckets);
    }
    for (const [sizeClass, counts] of slice.calls) addCallCounts(totalsOf(sizeClass).calls, counts);
    for (const m of slice.models) models.add(m);
    for (const p of slice.providers) providers.add(p);
  }

  const lane = emptyTotals();
  for (const t of bySize.values()) {
    for (const [m, acc] of t.all) accumulate(into(lane.all, m), acc, maxBuckets);
    for (const [m, acc] of t.ok) accumulate(into(lane.ok, m), acc, maxBuckets);
    if (t.tokensPerSecond !== undefined) {
      if (lane.tokensPerSecond === undefined) lane.tokensPerSecond = emptyAccumulator();
      accumulate(lane.tokensPerSecond, t.tokensPerSecond, maxBuckets);
    }
    addCallCounts(lane.calls, t.calls);
  }

  const identity = { models: [...models].sort(), providers: [...providers].sort() };
  const observation = (sizeClass: string | undefined, t: Totals): LaneObservation => ({
    lane: frame.lane,
    sizeClass,
    windowSeconds: frame.windowSeconds,
    windowEnd: frame.windowEnd,
    ok: distributions(t.ok),
    all: distributions(t.all),
    calls: t.calls.calls,
    outcomes: { ...t.calls.outcomes },
    errorTypes: Object.fromEntries([...t.calls.errorTypes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    retries: t.calls.retries,
    outputTokensPerSecond:
      t.tokensPerSecond !== undefined && t.tokensPerSecond.histogram.count > 0
        ? new HistogramDistribution(t.tokensPerSecond.histogram, t.tokensPerSecond.extraRelativeError)
        : undefined,
    ...identity,
  });
  const sizes = [...bySize.keys()].filter((s) => s !== '').sort();
  return [observation(undefined, lane), ...sizes.map((s) => observation(s, bySize.get(s) as Totals))];
}
