import type { Milestone } from '@lanewatch/instrumentation/names';

/**
 * Every threshold of the lane evaluation, with its default, in one place. The lanes file can override
 * `minSamples`, `p95BudgetS` and `cutoffMultiplier` per lane; the rest is process-wide.
 */
export interface LaneEvaluationConfig {
  /** Fewer calls than this in the window → `unknown`, not a guess. */
  readonly minSamples: number;
  /** Consecutive evaluations of ordinary evidence before a lane enters a worse state. */
  readonly enterEvaluations: number;
  /** Consecutive evaluations below the leave thresholds before a lane returns to a better state. */
  readonly leaveEvaluations: number;
  /** `degraded` when a milestone's p95 reaches this multiple of its own baseline… */
  readonly degradedEnterRatio: number;
  /** …and back only once it is under this multiple. */
  readonly degradedLeaveRatio: number;
  /** Configured p95 budgets (seconds) per milestone: above → `degraded`, back under `budgetLeaveFraction` of it. */
  readonly p95BudgetS: Readonly<Partial<Record<Milestone, number>>>;
  readonly budgetLeaveFraction: number;
  /** Failure rate (errors other than 429s) that makes a lane `degraded`, and that lets it go again. */
  readonly errorDegradedEnter: number;
  readonly errorDegradedLeave: number;
  /** Failure rate that makes a lane `down` (errors and timeouts dominate), and that lets it go again. */
  readonly downEnter: number;
  readonly downLeave: number;
  /** 429 rate that makes a lane `saturated`, and that lets it go again (hedging stays off above it). */
  readonly rateLimitedEnter: number;
  readonly rateLimitedLeave: number;
  /**
   * One-sided z of the Wilson bound that counts as strong evidence: a lane enters a worse state at once,
   * without waiting `enterEvaluations`, when the bound says the newest calls are past the enter threshold.
   */
  readonly strongEvidenceZ: number;
  /** Calls the newest slice needs before it can give strong evidence. */
  readonly minRecentSamples: number;
  /** Time constant of the baseline's exponential average, learnt only while healthy. */
  readonly baselineTimeConstantS: number;
  /** Cutoff = max(floor, multiplier × p95 of successful calls). */
  readonly cutoffMultiplier: number;
  readonly firstOutputCutoffFloorS: number;
  readonly totalCutoffFloorS: number;
  /** The milestone whose p95 the expected cost is made of (`end`: the job is done when the call is). */
  readonly costMilestone: Milestone;
  /** A record expires this long after its evaluation. */
  readonly recordTtlS: number;
}

export const DEFAULT_EVALUATION_CONFIG: LaneEvaluationConfig = {
  minSamples: 50,
  enterEvaluations: 3,
  leaveEvaluations: 6,
  degradedEnterRatio: 1.5,
  degradedLeaveRatio: 1.2,
  p95BudgetS: {},
  budgetLeaveFraction: 0.9,
  errorDegradedEnter: 0.1,
  errorDegradedLeave: 0.05,
  downEnter: 0.5,
  downLeave: 0.25,
  rateLimitedEnter: 0.05,
  rateLimitedLeave: 0.02,
  strongEvidenceZ: 4,
  minRecentSamples: 20,
  baselineTimeConstantS: 1800,
  cutoffMultiplier: 1.5,
  firstOutputCutoffFloorS: 0.25,
  totalCutoffFloorS: 1,
  costMilestone: 'end',
  recordTtlS: 60,
};

/** Milestones whose p95 can stand for "how long until something useful", best first. */
export const PRIMARY_MILESTONES: readonly Milestone[] = ['first_output', 'first_chunk', 'headers'];
