import { MILESTONE_QUANTILE_KEY, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import type { Distribution, LaneObservation } from '../lane-observation.ts';
import type { LaneEvaluationConfig } from './evaluation-config.ts';
import { formatNumber } from './format.ts';
import type { LaneCounts } from './lane-counts.ts';
import { fractionAbove, wilsonLowerBound } from './tail-statistics.ts';

/**
 * How strongly one evaluation points at a worse state:
 * - `strong`: the Wilson bound says the newest calls (or the whole window) are past the enter threshold;
 *   enough to change state at once;
 * - `enter`: the window is past the enter threshold; counts towards `enterEvaluations`;
 * - `hold`: between the leave and enter thresholds; a lane already in the state stays in it;
 * - `clear`: below the leave threshold.
 */
export type Evidence = 'clear' | 'hold' | 'enter' | 'strong';
const LEVEL: Readonly<Record<Evidence, number>> = { clear: 0, hold: 1, enter: 2, strong: 3 };

export function atLeast(evidence: Evidence, level: Evidence): boolean {
  return LEVEL[evidence] >= LEVEL[level];
}

export interface StateEvidence {
  readonly level: Evidence;
  /** Set unless `clear`. */
  readonly reason: string | undefined;
}

export interface LaneEvidence {
  readonly down: StateEvidence;
  readonly saturated: StateEvidence;
  readonly degraded: StateEvidence;
  /** Latency evidence per milestone with a baseline or a budget; the baseline learns only from `clear`. */
  readonly latency: Readonly<Partial<Record<Milestone, Evidence>>>;
}

const CLEAR: StateEvidence = { level: 'clear', reason: undefined };

interface RateInput {
  readonly name: string;
  readonly window: { readonly hits: number; readonly calls: number };
  readonly recent: { readonly hits: number; readonly calls: number } | undefined;
  readonly enter: number;
  readonly leave: number;
}

function rateEvidence(input: RateInput, config: LaneEvaluationConfig): StateEvidence {
  const { window, enter, leave } = input;
  const recent = input.recent && input.recent.calls >= config.minRecentSamples ? input.recent : undefined;
  const rate = window.calls === 0 ? 0 : window.hits / window.calls;
  const recentRate = recent ? recent.hits / recent.calls : 0;
  const strong =
    wilsonLowerBound(window.hits, window.calls, config.strongEvidenceZ) >= enter ||
    (recent !== undefined && wilsonLowerBound(recent.hits, recent.calls, config.strongEvidenceZ) >= enter);
  const level: Evidence = strong
    ? 'strong'
    : rate >= enter
      ? 'enter'
      : rate >= leave || recentRate >= leave
        ? 'hold'
        : 'clear';
  if (level === 'clear') return CLEAR;
  const newest = recent ? `, newest ${recent.hits} of ${recent.calls}` : '';
  return {
    level,
    reason: `${input.name} rate ${formatNumber(rate)} of ${window.calls} calls${newest} (enter ${enter}, leave ${leave})`,
  };
}

function latencyEvidence(
  milestone: Milestone,
  window: Distribution,
  recent: Distribution | undefined,
  baseline: number | undefined,
  config: LaneEvaluationConfig,
): StateEvidence {
  const budget = config.p95BudgetS[milestone];
  const enterAt = Math.min(
    baseline === undefined ? Infinity : baseline * config.degradedEnterRatio,
    budget ?? Infinity,
  );
  const holdAt = Math.min(
    baseline === undefined ? Infinity : baseline * config.degradedLeaveRatio,
    budget === undefined ? Infinity : budget * config.budgetLeaveFraction,
  );
  if (enterAt === Infinity) return CLEAR;
  const p95 = window.quantile(0.95) ?? 0;
  const usableRecent = recent && recent.count >= config.minRecentSamples ? recent : undefined;
  const recentP95 = usableRecent?.quantile(0.95) ?? 0;
  // Strong: confident that over 5 % of the calls are past the enter threshold, i.e. that the p95 is.
  const confidentlyOver = (d: Distribution): boolean =>
    (d.quantile(0.95) ?? 0) >= enterAt &&
    wilsonLowerBound(fractionAbove(d, enterAt) * d.count, d.count, config.strongEvidenceZ) >= 0.05;
  const level: Evidence =
    confidentlyOver(window) || (usableRecent !== undefined && confidentlyOver(usableRecent))
      ? 'strong'
      : p95 >= enterAt
        ? 'enter'
        : p95 >= holdAt || recentP95 >= holdAt
          ? 'hold'
          : 'clear';
  if (level === 'clear') return CLEAR;
  const key = MILESTONE_QUANTILE_KEY[milestone];
  const shown = Math.max(p95, recentP95);
  const against =
    budget !== undefined && enterAt === budget
      ? `budget ${formatNumber(budget)} s`
      : `${formatNumber(shown / (baseline ?? shown))}× baseline ${formatNumber(baseline ?? 0)} s`;
  const which = recentP95 > p95 ? 'newest ' : '';
  return { level, reason: `${which}p95 ${key} ${formatNumber(shown)} s against ${against}` };
}

function strongest(evidences: readonly StateEvidence[]): StateEvidence {
  let best = CLEAR;
  for (const e of evidences) if (LEVEL[e.level] > LEVEL[best.level]) best = e;
  return best;
}

export interface EvidenceInput {
  readonly window: LaneObservation;
  readonly recent: LaneObservation | undefined;
  readonly windowCounts: LaneCounts;
  readonly recentCounts: LaneCounts | undefined;
  readonly baselines: Readonly<Partial<Record<Milestone, number>>>;
  readonly config: LaneEvaluationConfig;
}

export function laneEvidence(input: EvidenceInput): LaneEvidence {
  const { window, recent, windowCounts: w, recentCounts: r, config } = input;
  const rate = (name: string, pick: (c: LaneCounts) => number, enter: number, leave: number) =>
    rateEvidence(
      {
        name,
        window: { hits: pick(w), calls: w.calls },
        recent: r ? { hits: pick(r), calls: r.calls } : undefined,
        enter,
        leave,
      },
      config,
    );
  const latency: Partial<Record<Milestone, Evidence>> = {};
  const latencyEvidences: StateEvidence[] = [];
  for (const milestone of MILESTONES) {
    const distribution = window.ok[milestone];
    if (!distribution || distribution.count < config.minSamples) continue;
    const e = latencyEvidence(
      milestone,
      distribution,
      recent?.ok[milestone],
      input.baselines[milestone],
      config,
    );
    latency[milestone] = e.level;
    latencyEvidences.push(e);
  }
  return {
    down: rate('failure', (c) => c.failures, config.downEnter, config.downLeave),
    saturated: rate('rate_limited', (c) => c.rateLimited, config.rateLimitedEnter, config.rateLimitedLeave),
    degraded: strongest([
      rate('failure', (c) => c.failures, config.errorDegradedEnter, config.errorDegradedLeave),
      ...latencyEvidences,
    ]),
    latency,
  };
}
