import { MILESTONE_QUANTILE_KEY, MILESTONES } from '@lanewatch/instrumentation/names';
import { expectedCostFor } from '../admission/admit.ts';
import type { CalibrationReport } from '../admission/calibration.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import type { LaneObservation } from '../lane-observation.ts';
import type { DemoLane } from './demo-lanes.ts';
import type { JobTally, LaneTally } from './demo-tally.ts';

/** One lane as the scoreboard, the JSON output and the report show it. */
export interface DemoLaneView {
  readonly demo: DemoLane;
  readonly url: string;
  /** The processor's latest record; `undefined` before its first evaluation. */
  readonly record: LaneHealth | undefined;
  /** Mean of each milestone over the window's successful calls (seconds), by quantile key. */
  readonly means: Readonly<Record<string, number>>;
  /** Expected cost of a job whose deadline is on the first visible text (seconds), from the same record. */
  readonly firstTextCostS: number | null;
  readonly tally: LaneTally;
}

export interface DemoSnapshot {
  readonly elapsedS: number;
  readonly timeScale: number;
  readonly processorUrl: string;
  readonly windowS: number;
  readonly intervalS: number;
  readonly minSamples: number;
  readonly healthPath: string;
  readonly lanes: readonly DemoLaneView[];
  readonly jobs: JobTally;
  readonly calibration: CalibrationReport;
}

/** The mean of each milestone over the ok calls of a window: exact, from the histograms' sums. */
export function meansOf(observation: LaneObservation | undefined): Record<string, number> {
  const means: Record<string, number> = {};
  if (!observation) return means;
  for (const milestone of MILESTONES) {
    const d = observation.ok[milestone];
    if (d && d.count > 0 && d.sum !== undefined) means[MILESTONE_QUANTILE_KEY[milestone]] = d.sum / d.count;
  }
  return means;
}

export function firstTextCostOf(record: LaneHealth | undefined): number | null {
  if (!record) return null;
  const cost = expectedCostFor({ ...record, stale: false }, 'first_text');
  return cost === null ? null : Math.round(cost * 1e6) / 1e6;
}

/**
 * Lanes ordered by an expected cost, cheapest first, lanes without one last: `end` is the record's own
 * `expected_cost_s` (a whole answer), `first_text` the cost of a job whose deadline is on the first text.
 */
export function rankingOf(lanes: readonly DemoLaneView[], by: 'end' | 'first_text' = 'end'): string[] {
  const cost = (l: DemoLaneView) => (by === 'end' ? l.record?.expected_cost_s : l.firstTextCostS) ?? Infinity;
  return [...lanes]
    .sort((a, b) => cost(a) - cost(b) || a.demo.lane.localeCompare(b.demo.lane))
    .map((l) => l.demo.lane);
}
