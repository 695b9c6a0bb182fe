// The lane-health record: what the processor writes into the store and serves on the feed, and what
// every reader gets back. The JSON Schema in `schema/lane-health.schema.json` describes the same
// shape for readers in other languages; `lane-health.schema.test.ts` keeps the two in step.

/** Worst last: `severity` orders the known states. */
export const LANE_STATES = ['unknown', 'healthy', 'degraded', 'saturated', 'down'] as const;
export type LaneState = (typeof LANE_STATES)[number];

/** Quantiles (seconds) of one milestone over the successful calls of the window. */
export interface MilestoneQuantiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  /** Successful calls in the window that reached this milestone. */
  readonly samples: number;
}

/** Fractions of the window's calls (0…1). */
export interface LaneRates {
  /** Calls whose outcome was `error`, whatever the class (429s and timeouts included). */
  readonly error: number;
  /** Calls whose `error.type` was `rate_limited` (HTTP 429 and provider equivalents). */
  readonly rate_limited: number;
  /** Calls whose `error.type` was `timeout`. */
  readonly timeout: number;
  /** Calls the caller cancelled (not an error). */
  readonly cancelled: number;
  /** Calls whose stream ended before the provider's terminal event. */
  readonly truncated: number;
  /** Calls that were a retry (`lanewatch.attempt` above 1). */
  readonly retry: number;
}

export interface LaneCutoffs {
  /** Give up waiting for the first effective output after this many seconds; `null` while unknown. */
  readonly first_output_s: number | null;
  /** Give up on the whole call after this many seconds; `null` while unknown. */
  readonly total_s: number | null;
}

export interface LaneHedge {
  /** Fire a second attempt when `milestone` has not happened after this many seconds. */
  readonly after_s: number | null;
  /** Whether a hedge is welcome now: never while unknown, saturated or down, nor while 429s are seen. */
  readonly allowed: boolean;
  /** Quantile key of the milestone the delay waits for (`time_to_first_output`, …). */
  readonly milestone: string | null;
}

/** The static part of a lane, from the lanes file. */
export interface LaneScorecard {
  readonly can_hold_secret: boolean;
  readonly offline_capable: boolean;
  /** Seconds lost by sending a job to this lane rather than running it where it is. */
  readonly handoff_s: number;
  /** Tie-breaker between lanes of equal expected cost; lower is preferred. */
  readonly rank: number;
  /** `lanes_file` when the lane is configured, `default` when it is not (conservative values). */
  readonly source: 'lanes_file' | 'default';
}

export interface LaneHealth {
  readonly lane: string;
  readonly state: LaneState;
  /** When the lane entered `state` (ISO 8601). */
  readonly state_since: string;
  /** Calls in the window (every call ends, so: the count of `gen_ai.client.operation.duration`). */
  readonly samples: number;
  readonly min_samples: number;
  readonly window_s: number;
  readonly updated_at: string;
  /** Past this instant the record reads as stale. */
  readonly expires_at: string;
  /** Keyed by `MILESTONE_QUANTILE_KEY` (`time_to_headers`, …, `duration`); absent milestones are absent. */
  readonly quantiles: Readonly<Record<string, MilestoneQuantiles>>;
  /** p99 / p50 of `tail_ratio_milestone` over successful calls. */
  readonly tail_ratio: number | null;
  readonly tail_ratio_milestone: string | null;
  readonly output_tokens_per_second: { readonly p50: number; readonly samples: number } | null;
  readonly rates: LaneRates;
  readonly cutoffs: LaneCutoffs;
  readonly hedge: LaneHedge;
  /** `p95(expected_cost_milestone) × (1 + rates.retry) + scorecard.handoff_s`; `null` while unknown. */
  readonly expected_cost_s: number | null;
  readonly expected_cost_milestone: string;
  /** The lane's own normal p95 per milestone (seconds), learnt while healthy; `degraded` compares with it. */
  readonly baseline_p95_s: Readonly<Record<string, number>>;
  /** The quantiles' relative-error bound (0 for exact quantiles). */
  readonly relative_error: number;
  readonly scorecard: LaneScorecard;
  readonly models: readonly string[];
  readonly providers: readonly string[];
  /** Short statements with numbers only: why the state and the hints are what they are. */
  readonly reasons: readonly string[];
}

/** A record as a reader sees it: `stale` once the reader's clock is past `expires_at`. */
export type LaneHealthView = LaneHealth & { readonly stale: boolean };

export function isStale(record: Pick<LaneHealth, 'expires_at'>, now: number): boolean {
  const expiresAt = Date.parse(record.expires_at);
  // An unreadable expiry is treated as expired: a record never reads as fresh by accident.
  return !(expiresAt > now);
}

export function viewOf(record: LaneHealth, now: number): LaneHealthView {
  const { stale: _ignored, ...rest } = record as LaneHealth & { stale?: unknown };
  return { ...rest, stale: isStale(record, now) };
}

export function severity(state: LaneState): number {
  return LANE_STATES.indexOf(state) - 1;
}
