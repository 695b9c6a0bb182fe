import type { LaneObservation } from '../lane-observation.ts';
import type { LaneRates } from './lane-health.ts';

/** The window's calls by what happened to them. */
export interface LaneCounts {
  readonly calls: number;
  readonly errors: number;
  readonly rateLimited: number;
  readonly timeouts: number;
  /**
   * Calls that failed for a reason other than load: error outcomes that were not 429s. A timeout the
   * instrumentation reported on a cancelled call still counts, hence the `max` with the timeouts.
   */
  readonly failures: number;
  readonly cancelled: number;
  readonly truncated: number;
  readonly retries: number;
}

export function countsOf(observation: LaneObservation): LaneCounts {
  const calls = Math.max(0, observation.calls);
  const clamp = (n: number | undefined): number => Math.min(calls, Math.max(0, n ?? 0));
  const errors = clamp(observation.outcomes.error);
  const rateLimited = clamp(observation.errorTypes.rate_limited);
  const timeouts = clamp(observation.errorTypes.timeout);
  return {
    calls,
    errors,
    rateLimited,
    timeouts,
    failures: clamp(Math.max(errors - rateLimited, timeouts)),
    cancelled: clamp(observation.outcomes.cancelled),
    truncated: clamp(observation.outcomes.truncated),
    retries: clamp(observation.retries),
  };
}

export function ratesOf(counts: LaneCounts): LaneRates {
  const of = (n: number): number => (counts.calls === 0 ? 0 : n / counts.calls);
  return {
    error: of(counts.errors),
    rate_limited: of(counts.rateLimited),
    timeout: of(counts.timeouts),
    cancelled: of(counts.cancelled),
    truncated: of(counts.truncated),
    retry: of(counts.retries),
  };
}
