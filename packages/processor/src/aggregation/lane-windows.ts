import type { LaneObservation } from '../lane-observation.ts';
import { MAX_ERROR_MESSAGES, type MetricsBatch } from '../otlp/histogram-point.ts';
import type { IngestResult } from '../otlp/metrics-handler.ts';
import { type AggregationOptions, resolveAggregationOptions } from './aggregation-options.ts';
import { isLaneMetric, laneLabelsOf, laneSeriesOf } from './lane-labels.ts';
import { LaneSlice } from './lane-slice.ts';
import { observeLane } from './observe-lane.ts';
import { type StreamDeltaCounters, StreamDeltas } from './stream-deltas.ts';

export interface LaneWindowStats extends StreamDeltaCounters {
  readonly lanes: number;
  readonly streams: number;
  readonly slices: number;
  /** Points whose time is older than the window when they arrive (their stream state still moves on). */
  tooOld: number;
  /** Points of lanewatch metrics without a lane, refused by a cap, and so on. */
  rejected: number;
}

/**
 * Sliding windows of merged exponential histograms per lane × milestone × outcome (× size class),
 * fed with decoded OTLP batches and read as `LaneObservation`s at any instant.
 *
 * Time: each point lands in the slice of its own timestamp (a batch delayed in a collector still
 * counts when its calls happened); a timestamp more than a slice ahead of the processor's clock is
 * taken as now. The window at instant t holds the slices that started after t − window.
 */
export class LaneWindows {
  readonly options: AggregationOptions;
  readonly #sliceMs: number;
  readonly #slicesPerWindow: number;
  readonly #slices = new Map<number, Map<string, LaneSlice>>();
  /** Lanes held, with the last time (epoch ms) a point of theirs arrived. */
  readonly #lanes = new Map<string, number>();
  readonly #streams: StreamDeltas;
  #currentSlice = Number.NEGATIVE_INFINITY;
  #tooOld = 0;
  #rejected = 0;

  constructor(options: Partial<AggregationOptions> = {}) {
    this.options = resolveAggregationOptions(options);
    this.#sliceMs = this.options.sliceSeconds * 1000;
    this.#slicesPerWindow = this.options.windowSeconds / this.options.sliceSeconds;
    this.#streams = new StreamDeltas({
      maxStreams: this.options.maxStreams,
      windowMs: this.options.windowSeconds * 1000,
      ttlMs: this.options.streamTtlSeconds * 1000,
    });
  }

  /** The metrics these windows read (for `createMetricsHandler({ accepts })`). */
  readonly accepts = (metricName: string): boolean => isLaneMetric(metricName);

  /** Adds a decoded batch at processor time `now` (epoch ms); says which points it refused and why. */
  ingest(batch: MetricsBatch, now: number = Date.now()): IngestResult {
    this.#advance(now);
    const firstSlice = this.#currentSlice - this.#slicesPerWindow + 1;
    const { maxBuckets } = this.options;
    let rejected = 0;
    const errors: string[] = [];
    const refuse = (message: string) => {
      rejected++;
      if (errors.length < MAX_ERROR_MESSAGES) errors.push(message);
    };
    for (const point of batch.points) {
      const series = laneSeriesOf(point.metric);
      if (series === undefined) continue;
      const labels = laneLabelsOf(point.attributes);
      if (labels === undefined) {
        refuse(
          `${point.metric}: point has neither lanewatch.lane nor gen_ai.provider.name + gen_ai.request.model`,
        );
        continue;
      }
      if (!this.#holdLane(labels.lane, now)) {
        refuse(
          `${point.metric}: lane ${JSON.stringify(labels.lane)} refused, the cap of ${this.options.maxLanes} lanes is reached`,
        );
        continue;
      }
      const delta = this.#streams.deltaOf(point, now);
      if (delta.kind === 'refused') {
        refuse(
          `${point.metric}: new stream refused, the cap of ${this.options.maxStreams} streams is reached`,
        );
        continue;
      }
      if (delta.kind === 'none') continue;
      const time = point.timeMs > now + this.#sliceMs ? now : point.timeMs;
      const index = Math.floor(time / this.#sliceMs);
      if (index < firstSlice) {
        this.#tooOld++;
        continue;
      }
      this.#sliceOf(index, labels.lane).add(series, labels, delta.data, maxBuckets);
    }
    this.#rejected += rejected;
    return { rejected, errors };
  }

  /** Observations of every lane with data in the window ending at `now`: the lane, then its size classes. */
  observe(now: number = Date.now()): LaneObservation[] {
    this.#advance(now);
    const byLane = new Map<string, LaneSlice[]>();
    const lastSlice = Math.floor(now / this.#sliceMs);
    for (const [index, lanes] of this.#slices) {
      if (index > lastSlice) continue; // ahead of `now` (an earlier call saw a later clock)
      for (const [lane, slice] of lanes) {
        let list = byLane.get(lane);
        if (list === undefined) {
          list = [];
          byLane.set(lane, list);
        }
        list.push(slice);
      }
    }
    const frame = {
      windowSeconds: this.options.windowSeconds,
      windowEnd: now,
      maxBuckets: this.options.maxBuckets,
    };
    return [...byLane.keys()]
      .sort()
      .flatMap((lane) => observeLane(byLane.get(lane) ?? [], { ...frame, lane }));
  }

  stats(): LaneWindowStats {
    let slices = 0;
    for (const lanes of this.#slices.values()) slices += lanes.size;
    return {
      ...this.#streams.counters,
      lanes: this.#lanes.size,
      streams: this.#streams.size,
      slices,
      tooOld: this.#tooOld,
      rejected: this.#rejected,
    };
  }

  #sliceOf(index: number, lane: string): LaneSlice {
    let lanes = this.#slices.get(index);
    if (lanes === undefined) {
      lanes = new Map();
      this.#slices.set(index, lanes);
    }
    let slice = lanes.get(lane);
    if (slice === undefined) {
      slice = new LaneSlice();
      lanes.set(lane, slice);
    }
    return slice;
  }

  #holdLane(lane: string, now: number): boolean {
    if (!this.#lanes.has(lane) && this.#lanes.size >= this.options.maxLanes) {
      this.#evictQuietLanes(now);
      if (this.#lanes.size >= this.options.maxLanes) return false;
    }
    this.#lanes.set(lane, now);
    return true;
  }

  #evictQuietLanes(now: number): void {
    const horizon = now - this.options.windowSeconds * 1000;
    for (const [lane, seen] of this.#lanes) if (seen < horizon) this.#lanes.delete(lane);
  }

  /** Moves the window to `now`: drops slices that left it, and once per slice forgets stale state. */
  #advance(now: number): void {
    const index = Math.floor(now / this.#sliceMs);
    if (index <= this.#currentSlice) return;
    this.#currentSlice = index;
    const first = index - this.#slicesPerWindow + 1;
    for (const key of this.#slices.keys()) if (key < first) this.#slices.delete(key);
    this.#streams.evictStale(now);
    this.#evictQuietLanes(now);
  }
}
