import { MILESTONE_QUANTILE_KEY, MILESTONES } from '@lanewatch/instrumentation/names';
import type { LaneObservation } from '../lane-observation.ts';
import { updateBaselines } from './baseline.ts';
import type { LaneEvaluationConfig } from './evaluation-config.ts';
import { laneEvidence } from './evidence.ts';
import { formatNumber, roundForRecord } from './format.ts';
import { cutoffsOf, expectedCostOf, hedgeOf, primaryMilestone } from './hints.ts';
import { stepState } from './hysteresis.ts';
import { countsOf, ratesOf } from './lane-counts.ts';
import type { LaneHealth, LaneScorecard, MilestoneQuantiles } from './lane-health.ts';
import { initialMemory, type LaneMemory } from './lane-memory.ts';

export interface LaneEvaluationInput {
  /** The lane over the whole window. */
  readonly observation: LaneObservation;
  /**
   * The lane over the newest slice(s) of the window, when aggregation offers it. It lets strong
   * evidence flag a change within one slice instead of waiting for it to move the whole window's p95.
   */
  readonly recent?: LaneObservation | undefined;
  /** What the previous evaluation of this lane left; `undefined` the first time. */
  readonly previous: LaneMemory | undefined;
  readonly scorecard: LaneScorecard;
  readonly config: LaneEvaluationConfig;
  /** Epoch ms; the only clock the evaluation sees. */
  readonly now: number;
}

export interface LaneEvaluation {
  readonly record: LaneHealth;
  readonly memory: LaneMemory;
  /** The state differs from the previous evaluation's. */
  readonly stateChanged: boolean;
}

/** One lane, one evaluation: pure, no I/O, the clock passed in. */
export function evaluateLane(input: LaneEvaluationInput): LaneEvaluation {
  const { observation: window, recent, scorecard, config, now } = input;
  const previous = input.previous ?? initialMemory(now);
  const counts = countsOf(window);
  const rates = ratesOf(counts);
  const known = counts.calls >= config.minSamples;
  const evidence = known
    ? laneEvidence({
        window,
        recent,
        windowCounts: counts,
        recentCounts: recent ? countsOf(recent) : undefined,
        baselines: previous.baselines,
        config,
      })
    : undefined;
  const step = stepState(previous, evidence, now, config);
  const learning = step.state === 'healthy' && step.pending === undefined;
  const { baselines, baselineAt } = known
    ? updateBaselines(previous, window, evidence?.latency ?? {}, learning, now, config)
    : previous;

  const quantiles: Record<string, MilestoneQuantiles> = {};
  for (const milestone of MILESTONES) {
    const d = window.ok[milestone];
    if (!d || d.count === 0) continue;
    quantiles[MILESTONE_QUANTILE_KEY[milestone]] = {
      p50: roundForRecord(d.quantile(0.5) ?? 0),
      p95: roundForRecord(d.quantile(0.95) ?? 0),
      p99: roundForRecord(d.quantile(0.99) ?? 0),
      samples: d.count,
    };
  }
  const primary = primaryMilestone(window, config.minSamples);
  const primaryQuantiles = primary === undefined ? undefined : quantiles[MILESTONE_QUANTILE_KEY[primary]];
  const tailRatio =
    primaryQuantiles && primaryQuantiles.p50 > 0 ? primaryQuantiles.p99 / primaryQuantiles.p50 : undefined;
  const tokens = window.outputTokensPerSecond;
  const tokensP50 = tokens && tokens.count > 0 ? tokens.quantile(0.5) : undefined;
  const hedge = hedgeOf(
    window,
    step.state,
    evidence?.saturated ?? { level: 'clear', reason: undefined },
    config,
  );
  const cost = expectedCostOf(window, rates.retry, scorecard.handoff_s, config);

  const reasons: string[] = [];
  if (!known) reasons.push(`${counts.calls} samples, fewer than min_samples ${config.minSamples}`);
  if (step.reason) reasons.push(step.reason);
  if (primary !== undefined && primaryQuantiles) {
    reasons.push(
      `p95 ${MILESTONE_QUANTILE_KEY[primary]} ${formatNumber(primaryQuantiles.p95)} s over ${primaryQuantiles.samples} samples`,
    );
  }
  if (hedge.reason && known) reasons.push(hedge.reason);
  if (cost.reason) reasons.push(cost.reason);

  const baselineRecord: Record<string, number> = {};
  for (const milestone of MILESTONES) {
    const value = baselines[milestone];
    if (value !== undefined) baselineRecord[MILESTONE_QUANTILE_KEY[milestone]] = roundForRecord(value);
  }

  const record: LaneHealth = {
    lane: window.lane,
    state: step.state,
    state_since: new Date(step.since).toISOString(),
    samples: counts.calls,
    min_samples: config.minSamples,
    window_s: window.windowSeconds,
    updated_at: new Date(now).toISOString(),
    expires_at: new Date(now + config.recordTtlS * 1000).toISOString(),
    quantiles,
    tail_ratio: tailRatio === undefined ? null : roundForRecord(tailRatio),
    tail_ratio_milestone: primary === undefined ? null : MILESTONE_QUANTILE_KEY[primary],
    output_tokens_per_second:
      tokensP50 === undefined || !tokens ? null : { p50: roundForRecord(tokensP50), samples: tokens.count },
    rates: {
      error: roundForRecord(rates.error),
      rate_limited: roundForRecord(rates.rate_limited),
      timeout: roundForRecord(rates.timeout),
      cancelled: roundForRecord(rates.cancelled),
      truncated: roundForRecord(rates.truncated),
      retry: roundForRecord(rates.retry),
    },
    cutoffs: cutoffsOf(window, config),
    hedge: hedge.hedge,
    expected_cost_s: cost.cost,
    expected_cost_milestone: MILESTONE_QUANTILE_KEY[config.costMilestone],
    baseline_p95_s: baselineRecord,
    relative_error: roundForRecord(maxRelativeError(window)),
    scorecard,
    models: [...window.models],
    providers: [...window.providers],
    reasons,
  };
  return {
    record,
    memory: { state: step.state, since: step.since, pending: step.pending, baselines, baselineAt },
    stateChanged: step.state !== previous.state,
  };
}

function maxRelativeError(window: LaneObservation): number {
  let worst = 0;
  for (const d of Object.values(window.ok)) if (d && d.count > 0) worst = Math.max(worst, d.relativeError);
  return worst;
}

/** Shown when a lane has no entry in the lanes file: nothing is assumed in its favour. */
export const DEFAULT_SCORECARD: LaneScorecard = {
  can_hold_secret: false,
  offline_capable: false,
  handoff_s: 0,
  rank: 1000,
  source: 'default',
};
