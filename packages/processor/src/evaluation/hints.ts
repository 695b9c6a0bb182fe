import { MILESTONE_QUANTILE_KEY, type Milestone } from '@lanewatch/instrumentation/names';
import type { LaneObservation } from '../lane-observation.ts';
import { type LaneEvaluationConfig, PRIMARY_MILESTONES } from './evaluation-config.ts';
import type { StateEvidence } from './evidence.ts';
import { formatNumber, roundForRecord } from './format.ts';
import type { LaneCutoffs, LaneHedge, LaneState } from './lane-health.ts';

function p95Of(window: LaneObservation, milestone: Milestone, minSamples: number): number | undefined {
  const distribution = window.ok[milestone];
  if (!distribution || distribution.count < minSamples) return undefined;
  return distribution.quantile(0.95);
}

/**
 * The milestone that says "something useful has started": first effective output when the format
 * reports it, else the first chunk (unknown SSE formats report only that and the end), else headers.
 * The tail ratio and the hedge delay are taken on it.
 */
export function primaryMilestone(window: LaneObservation, minSamples: number): Milestone | undefined {
  return PRIMARY_MILESTONES.find((m) => (window.ok[m]?.count ?? 0) >= minSamples);
}

/**
 * Cutoffs: `max(floor, cutoffMultiplier × p95)` of successful calls. Cutting at the p95 itself would
 * kill one good call in twenty; 1.5 × p95 cuts only calls that are past where the lane's own successes
 * end, which on a heavy tail are the ones a fresh attempt beats.
 */
export function cutoffsOf(window: LaneObservation, config: LaneEvaluationConfig): LaneCutoffs {
  const cut = (milestone: Milestone, floor: number): number | null => {
    const p95 = p95Of(window, milestone, config.minSamples);
    return p95 === undefined ? null : roundForRecord(Math.max(floor, config.cutoffMultiplier * p95));
  };
  return {
    first_output_s: cut('first_output', config.firstOutputCutoffFloorS),
    total_s: cut('end', config.totalCutoffFloorS),
  };
}

/**
 * Hedge delay: the p95 of the primary milestone, so about one call in twenty is hedged. Allowed only
 * while the lane is healthy or degraded (a hedge is what fixes a slow tail) and no 429s are past the
 * saturated leave threshold: a 429 asks for less load, and this switch flips on the first evaluation
 * that sees them, before the state itself has moved.
 */
export function hedgeOf(
  window: LaneObservation,
  state: LaneState,
  saturated: StateEvidence,
  config: LaneEvaluationConfig,
): { hedge: LaneHedge; reason: string | undefined } {
  const milestone = primaryMilestone(window, config.minSamples);
  const after = milestone === undefined ? undefined : p95Of(window, milestone, config.minSamples);
  const base = {
    after_s: after === undefined ? null : roundForRecord(after),
    milestone: milestone === undefined ? null : MILESTONE_QUANTILE_KEY[milestone],
  };
  let reason: string | undefined;
  if (state !== 'healthy' && state !== 'degraded') reason = `no hedging while ${state}`;
  else if (saturated.level !== 'clear') reason = 'no hedging while 429s are seen';
  else if (after === undefined) reason = 'no hedge delay without a first-output milestone';
  return { hedge: { ...base, allowed: reason === undefined }, reason };
}

/** `p95(costMilestone) × (1 + retry rate) + handoff_s` (seed 000's expected cost, on live numbers). */
export function expectedCostOf(
  window: LaneObservation,
  retryRate: number,
  handoffS: number,
  config: LaneEvaluationConfig,
): { cost: number | null; reason: string | undefined } {
  const p95 = p95Of(window, config.costMilestone, config.minSamples);
  if (p95 === undefined) return { cost: null, reason: undefined };
  const cost = p95 * (1 + retryRate) + handoffS;
  return {
    cost: roundForRecord(cost),
    reason: `expected cost ${formatNumber(cost)} s = p95 ${MILESTONE_QUANTILE_KEY[config.costMilestone]} ${formatNumber(p95)} s × (1 + retry ${formatNumber(retryRate)}) + handoff ${formatNumber(handoffS)} s`,
  };
}
