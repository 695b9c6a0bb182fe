import { MILESTONE_QUANTILE_KEY, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import type { LaneHealth, LaneState } from './lane-health.ts';

/** What one evaluation of a lane hands to the next: the hysteresis counters and the learnt baseline. */
export interface LaneMemory {
  readonly state: LaneState;
  /** Epoch ms when `state` was entered. */
  readonly since: number;
  /** A state the evidence points to, and for how many consecutive evaluations it has. */
  readonly pending: { readonly state: LaneState; readonly count: number } | undefined;
  /** The lane's own normal p95 per milestone (seconds). */
  readonly baselines: Readonly<Partial<Record<Milestone, number>>>;
  readonly baselineAt: number | undefined;
}

export function initialMemory(now: number): LaneMemory {
  return { state: 'unknown', since: now, pending: undefined, baselines: {}, baselineAt: undefined };
}

/**
 * Memory recovered from a stored record, so a restarted processor keeps the lane's state, when it began
 * and its baseline instead of relearning them.
 */
export function memoryFromRecord(record: LaneHealth): LaneMemory {
  const baselines: Partial<Record<Milestone, number>> = {};
  for (const milestone of MILESTONES) {
    const value = record.baseline_p95_s[MILESTONE_QUANTILE_KEY[milestone]];
    if (typeof value === 'number' && value > 0) baselines[milestone] = value;
  }
  const since = Date.parse(record.state_since);
  const updatedAt = Date.parse(record.updated_at);
  return {
    state: record.state,
    since: Number.isFinite(since) ? since : updatedAt,
    pending: undefined,
    baselines,
    baselineAt: Number.isFinite(updatedAt) ? updatedAt : undefined,
  };
}
