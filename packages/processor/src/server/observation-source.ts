import type { LaneObservation } from '../lane-observation.ts';
import type { MetricsBatch } from '../otlp/histogram-point.ts';
import type { IngestResult } from '../otlp/metrics-handler.ts';

/** One lane as aggregation sees it at one instant. */
export interface ObservedLane {
  /** The whole sliding window. */
  readonly window: LaneObservation;
  /** The newest slice(s) of the window, when aggregation keeps them: lets strong evidence act fast. */
  readonly recent?: LaneObservation | undefined;
}

/** Where the evaluation loop gets its observations: aggregation's sliding windows. */
export interface LaneObservationSource {
  /** Every lane (lane-level observations; per-size-class ones are skipped) for the window ending at `now`. */
  observe(now: number): readonly ObservedLane[];
}

/** Ingest → windows: takes decoded OTLP batches and answers observations. */
export interface LaneWindows extends LaneObservationSource {
  ingest(batch: MetricsBatch): IngestResult;
  /** The metric names worth decoding (the OTLP receiver skips the others). */
  readonly accepts?: (metricName: string) => boolean;
}
