import type { Milestone, Outcome } from '@lanewatch/instrumentation';

/**
 * The contract between aggregation (OTLP points → sliding windows of merged exponential histograms)
 * and evaluation (windows → lane state and hints). Aggregation produces one `LaneObservation` per
 * lane (and per lane × size class) for the current window; evaluation never sees OTLP.
 */

/** A distribution over the window: a merged exponential histogram, or anything that answers the same. */
export interface Distribution {
  /** Number of samples. */
  readonly count: number;
  /** Sum of samples (seconds or tokens/s); `undefined` when the producer did not report it. */
  readonly sum: number | undefined;
  readonly min: number | undefined;
  readonly max: number | undefined;
  /**
   * Estimate of the q-quantile (0 ≤ q ≤ 1) within `relativeError` of a value between the true
   * neighbouring order statistics; `undefined` when `count` is 0.
   */
  quantile(q: number): number | undefined;
  /** The histogram's relative-error bound at its current scale: (2^(2^-scale) − 1) / (2^(2^-scale) + 1). */
  readonly relativeError: number;
}

export interface LaneObservation {
  readonly lane: string;
  /** `undefined` for the lane as a whole; a size class (`xs … xl`) for the per-size view. */
  readonly sizeClass: string | undefined;
  /** Length of the window these numbers cover, and its end (epoch ms). */
  readonly windowSeconds: number;
  readonly windowEnd: number;
  /** Milestone distributions of calls whose outcome was `ok` (the only ones that say how fast a lane is). */
  readonly ok: Partial<Record<Milestone, Distribution>>;
  /** Milestone distributions over every outcome (a 429 is counted, and counts as slow, never as fast). */
  readonly all: Partial<Record<Milestone, Distribution>>;
  /** Calls in the window, from the count of `gen_ai.client.operation.duration` (every call ends). */
  readonly calls: number;
  readonly outcomes: Readonly<Record<Outcome, number>>;
  /** Calls by `error.type` (`rate_limited`, `timeout`, `http_5xx`, `stream_error:…`). */
  readonly errorTypes: Readonly<Record<string, number>>;
  /** Calls whose `lanewatch.attempt` was above 1. */
  readonly retries: number;
  readonly outputTokensPerSecond: Distribution | undefined;
  /** Identity of what contributed, for the record's provenance. */
  readonly models: readonly string[];
  readonly providers: readonly string[];
}
