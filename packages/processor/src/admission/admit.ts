import { randomUUID } from 'node:crypto';
import { MILESTONE_QUANTILE_KEY, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import type { LaneHealthView, LaneState } from '../evaluation/lane-health.ts';

/**
 * A job asking for a lane. Only `id`, `deadline_s`, `secret_class`, `requires_offline` and `milestone`
 * are read, and only those reach the decision record: whatever else a caller's job object carries
 * (prompts, credentials, customer data) is never copied, logged or kept.
 */
export interface AdmissionJob {
  readonly id: string;
  /** Seconds from now by which the job's call must be done (or its `milestone` reached). */
  readonly deadline_s: number;
  /** `restricted` jobs go only to lanes that `can_hold_secret`. */
  readonly secret_class?: string | undefined;
  /** Only lanes that are `offline_capable`. */
  readonly requires_offline?: boolean | undefined;
  /** What the deadline is about: `end` (default, the whole call) or e.g. `first_output`. */
  readonly milestone?: Milestone | undefined;
}

export interface AdmissionOptions {
  /** Seconds kept back from every deadline (seed 000's margin). Default 1. */
  readonly safetyMarginS?: number;
  readonly now?: () => number;
  /** For tests: the decision id. */
  readonly decisionId?: string;
}

export type RejectionReason =
  | 'cannot_hold_secret'
  | 'not_offline_capable'
  | 'stale'
  | 'unknown'
  | 'down'
  | 'saturated'
  | 'no_expected_cost'
  | 'over_budget';

export interface LaneConsidered {
  readonly lane: string;
  readonly state: LaneState;
  readonly stale: boolean;
  readonly expected_cost_s: number | null;
  readonly rank: number;
  /** Absent for the lane chosen and for eligible lanes that were not needed. */
  readonly rejected?: RejectionReason;
}

export interface AdmissionDecision {
  readonly decision_id: string;
  readonly job_id: string;
  readonly at: string;
  readonly deadline_s: number;
  readonly safety_margin_s: number;
  /** `deadline_s − safety_margin_s`: what the expected cost must fit in. */
  readonly budget_s: number;
  readonly secret_class: string | null;
  readonly requires_offline: boolean;
  /** Quantile key the expected costs are made of (`duration` unless the job said otherwise). */
  readonly milestone: string;
  readonly admitted: boolean;
  readonly lane: string | null;
  readonly expected_cost_s: number | null;
  /** One short sentence, numbers and lane names only. */
  readonly reason: string;
  readonly considered: readonly LaneConsidered[];
}

export class AdmissionJobError extends TypeError {
  override readonly name = 'AdmissionJobError';
}

/** Ids and classes are logged: keep them short and plain, so nothing else can ride along in them. */
function plain(value: string, max: number): string {
  return value.length <= max && /^[\w.:/@-]+$/.test(value) ? value : '[redacted]';
}

function checkJob(job: AdmissionJob): void {
  if (typeof job?.id !== 'string' || job.id.length === 0) {
    throw new AdmissionJobError(
      'admit(job): job.id must be a non-empty string (it names the decision record)',
    );
  }
  if (typeof job.deadline_s !== 'number' || !Number.isFinite(job.deadline_s) || job.deadline_s <= 0) {
    throw new AdmissionJobError(
      `admit(job): job.deadline_s must be a number of seconds above 0, got ${String(job.deadline_s)}`,
    );
  }
  if (job.milestone !== undefined && !(MILESTONES as readonly string[]).includes(job.milestone)) {
    throw new AdmissionJobError(`admit(job): job.milestone must be one of ${MILESTONES.join(', ')}`);
  }
}

/**
 * The expected cost of a lane for a job: the record's own `expected_cost_s` when the job's milestone is
 * the one it was made of, else the same formula on that milestone's p95 — `null` when the milestone has
 * fewer than `min_samples` successful calls (not a guess).
 */
export function expectedCostFor(record: LaneHealthView, milestone: Milestone): number | null {
  const key = MILESTONE_QUANTILE_KEY[milestone];
  if (key === record.expected_cost_milestone) return record.expected_cost_s;
  const quantiles = record.quantiles[key];
  if (!quantiles || quantiles.samples < record.min_samples) return null;
  return quantiles.p95 * (1 + record.rates.retry) + record.scorecard.handoff_s;
}

function rejectionOf(
  record: LaneHealthView,
  job: AdmissionJob,
  cost: number | null,
): RejectionReason | undefined {
  if (job.secret_class === 'restricted' && !record.scorecard.can_hold_secret) return 'cannot_hold_secret';
  if (job.requires_offline === true && !record.scorecard.offline_capable) return 'not_offline_capable';
  if (record.stale) return 'stale';
  if (record.state === 'unknown' || record.state === 'down' || record.state === 'saturated')
    return record.state;
  if (cost === null) return 'no_expected_cost';
  return undefined;
}

/**
 * Seed 000's admission controller on live hints: of the eligible lanes (secret class, offline need,
 * fresh, neither unknown, down nor saturated), the cheapest by expected cost then rank whose cost fits
 * `deadline_s − safety_margin_s`; when none fits, a refusal at once, with the reason. Pure apart from
 * the clock and the decision id.
 */
export function admit(
  job: AdmissionJob,
  hints: readonly LaneHealthView[],
  options: AdmissionOptions = {},
): AdmissionDecision {
  checkJob(job);
  const margin = options.safetyMarginS ?? 1;
  const budget = job.deadline_s - margin;
  const milestone = job.milestone ?? 'end';
  const considered: (LaneConsidered & { cost: number | null })[] = hints.map((record) => {
    const cost = expectedCostFor(record, milestone);
    const rejected = rejectionOf(record, job, cost);
    return {
      lane: record.lane,
      state: record.state,
      stale: record.stale,
      expected_cost_s: cost,
      rank: record.scorecard.rank,
      cost,
      ...(rejected ? { rejected } : {}),
    };
  });
  const eligible = considered
    .filter((c) => c.rejected === undefined)
    .sort((a, b) => (a.cost ?? 0) - (b.cost ?? 0) || a.rank - b.rank || a.lane.localeCompare(b.lane));
  const chosen = eligible.find((c) => (c.cost ?? Infinity) <= budget);
  // Sorted by cost, so the first eligible lane either fits or none does.
  const final: LaneConsidered[] = considered.map(({ cost, ...c }) =>
    c.rejected === undefined && (cost ?? Infinity) > budget ? { ...c, rejected: 'over_budget' as const } : c,
  );
  const cheapest = eligible[0];
  const reason = chosen
    ? `${chosen.lane}: expected ${round(chosen.cost ?? 0)} s within budget ${round(budget)} s`
    : cheapest
      ? `refused: cheapest eligible lane ${cheapest.lane} expects ${round(cheapest.cost ?? 0)} s, over budget ${round(budget)} s`
      : hints.length === 0
        ? 'refused: no lanes are known'
        : `refused: no eligible lane of ${hints.length}`;
  return {
    decision_id: options.decisionId ?? randomUUID(),
    job_id: plain(job.id, 128),
    at: new Date((options.now ?? Date.now)()).toISOString(),
    deadline_s: job.deadline_s,
    safety_margin_s: margin,
    budget_s: round(budget),
    secret_class: job.secret_class === undefined ? null : plain(job.secret_class, 32),
    requires_offline: job.requires_offline === true,
    milestone: MILESTONE_QUANTILE_KEY[milestone],
    admitted: chosen !== undefined,
    lane: chosen?.lane ?? null,
    expected_cost_s: chosen?.cost === undefined || chosen.cost === null ? null : round(chosen.cost),
    reason,
    considered: final,
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
