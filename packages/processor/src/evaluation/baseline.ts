import { MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import type { LaneObservation } from '../lane-observation.ts';
import type { LaneEvaluationConfig } from './evaluation-config.ts';
import type { Evidence } from './evidence.ts';

export interface Baselines {
  readonly baselines: Readonly<Partial<Record<Milestone, number>>>;
  readonly baselineAt: number | undefined;
}

/**
 * The lane's own normal p95 per milestone: the first window with enough samples sets it; after that an
 * exponential average with time constant `baselineTimeConstantS` follows the window's p95, but only
 * while the lane is healthy with nothing pending and the milestone is clear of latency evidence — so a
 * slowdown is never learnt as the new normal while it is being flagged.
 */
export function updateBaselines(
  previous: Baselines,
  window: LaneObservation,
  latency: Readonly<Partial<Record<Milestone, Evidence>>>,
  learning: boolean,
  now: number,
  config: LaneEvaluationConfig,
): Baselines {
  const baselines: Partial<Record<Milestone, number>> = { ...previous.baselines };
  const elapsedS = previous.baselineAt === undefined ? 0 : Math.max(0, (now - previous.baselineAt) / 1000);
  const weight = 1 - Math.exp(-elapsedS / config.baselineTimeConstantS);
  for (const milestone of MILESTONES) {
    const distribution = window.ok[milestone];
    if (!distribution || distribution.count < config.minSamples) continue;
    const p95 = distribution.quantile(0.95);
    if (p95 === undefined || !(p95 > 0)) continue;
    const old = baselines[milestone];
    if (old === undefined) baselines[milestone] = p95;
    else if (learning && (latency[milestone] ?? 'clear') === 'clear') {
      baselines[milestone] = old + (p95 - old) * weight;
    }
  }
  return { baselines, baselineAt: now };
}
