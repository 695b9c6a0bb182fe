import { type Milestone, OUTCOMES, type Outcome } from '@lanewatch/instrumentation';
import { explicitToExponential } from '../histogram/explicit-histogram.ts';
import { type ExponentialHistogram, emptyHistogram } from '../histogram/exponential-histogram.ts';
import { mergeInto } from '../histogram/merge.ts';
import type { LaneLabels, LaneSeries } from './lane-labels.ts';
import type { PointData } from './stream-deltas.ts';

/** A merged histogram and the relative error its samples carried in (explicit buckets; else 0). */
export interface Accumulator {
  readonly histogram: ExponentialHistogram;
  extraRelativeError: number;
}

export function emptyAccumulator(): Accumulator {
  return { histogram: emptyHistogram(), extraRelativeError: 0 };
}

export function accumulate(into: Accumulator, from: Accumulator, maxBuckets: number): void {
  mergeInto(into.histogram, from.histogram, maxBuckets);
  into.extraRelativeError = Math.max(into.extraRelativeError, from.extraRelativeError);
}

export interface CallCounts {
  calls: number;
  readonly outcomes: Record<Outcome, number>;
  readonly errorTypes: Map<string, number>;
  retries: number;
}

export function emptyCallCounts(): CallCounts {
  return {
    calls: 0,
    outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>,
    errorTypes: new Map(),
    retries: 0,
  };
}

export function addCallCounts(into: CallCounts, from: CallCounts): void {
  into.calls += from.calls;
  for (const o of OUTCOMES) into.outcomes[o] += from.outcomes[o];
  for (const [type, n] of from.errorTypes) into.errorTypes.set(type, (into.errorTypes.get(type) ?? 0) + n);
  into.retries += from.retries;
}

/** Key of a milestone histogram inside a slice. */
export interface MilestoneKey {
  readonly sizeClass: string;
  readonly milestone: Milestone;
  readonly ok: boolean;
}

/**
 * What one lane recorded during one slice of the window: milestone histograms by size class ×
 * milestone × (ok or not), tokens/s by size class, call counts by size class, and who served it.
 */
export class LaneSlice {
  readonly milestones = new Map<string, { readonly key: MilestoneKey; readonly acc: Accumulator }>();
  readonly tokensPerSecond = new Map<string, Accumulator>();
  readonly calls = new Map<string, CallCounts>();
  readonly models = new Set<string>();
  readonly providers = new Set<string>();

  add(series: LaneSeries, labels: LaneLabels, data: PointData, maxBuckets: number): void {
    const incoming = toAccumulator(data, maxBuckets);
    if (labels.model !== undefined) this.models.add(labels.model);
    if (labels.provider !== undefined) this.providers.add(labels.provider);
    if (series.kind === 'tokensPerSecond') {
      let acc = this.tokensPerSecond.get(labels.sizeClass);
      if (acc === undefined) {
        acc = emptyAccumulator();
        this.tokensPerSecond.set(labels.sizeClass, acc);
      }
      accumulate(acc, incoming, maxBuckets);
      return;
    }
    const ok = labels.outcome === 'ok';
    const id = `${labels.sizeClass}\u0000${series.milestone}\u0000${ok ? 'ok' : ''}`;
    let entry = this.milestones.get(id);
    if (entry === undefined) {
      entry = {
        key: { sizeClass: labels.sizeClass, milestone: series.milestone, ok },
        acc: emptyAccumulator(),
      };
      this.milestones.set(id, entry);
    }
    accumulate(entry.acc, incoming, maxBuckets);
    // Every call ends: the `end` milestone (operation duration) counts calls, outcomes and retries.
    if (series.milestone === 'end') this.#count(labels, incoming.histogram.count);
  }

  #count(labels: LaneLabels, n: number): void {
    let counts = this.calls.get(labels.sizeClass);
    if (counts === undefined) {
      counts = emptyCallCounts();
      this.calls.set(labels.sizeClass, counts);
    }
    counts.calls += n;
    if (labels.outcome !== undefined) counts.outcomes[labels.outcome] += n;
    if (labels.errorType !== undefined) {
      counts.errorTypes.set(labels.errorType, (counts.errorTypes.get(labels.errorType) ?? 0) + n);
    }
    if (labels.retry) counts.retries += n;
  }
}

function toAccumulator(data: PointData, maxBuckets: number): Accumulator {
  if (data.kind === 'exponential') return { histogram: data.histogram, extraRelativeError: 0 };
  const { histogram, relativeError } = explicitToExponential(data.histogram, maxBuckets);
  return { histogram, extraRelativeError: relativeError };
}
