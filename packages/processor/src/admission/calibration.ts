import { wilsonLowerBound } from '../evaluation/tail-statistics.ts';

/** One job's outcome against what its decision expected. */
export interface OutcomeRecord {
  readonly type: 'outcome';
  readonly decision_id: string;
  readonly job_id: string;
  readonly lane: string;
  readonly at: string;
  readonly expected_cost_s: number;
  readonly actual_s: number;
  /** `actual_s − expected_cost_s`: above 0 the lane was slower than the hint said. */
  readonly gap_s: number;
  readonly deadline_s: number;
  readonly met_deadline: boolean;
  readonly outcome: string;
}

export interface LaneCalibration {
  readonly lane: string;
  readonly count: number;
  readonly mean_expected_s: number;
  readonly mean_actual_s: number;
  readonly mean_gap_s: number;
  readonly p95_gap_s: number;
  /** Fraction of jobs that took longer than expected. The cost is a p95, so about 0.05 is right. */
  readonly over_expected: number;
  readonly deadline_misses: number;
  /**
   * True when, with at least 20 outcomes, the Wilson bound (z = 2) says clearly more than 1 job in 20
   * ran over its expected cost: the hints are stale or optimistic for this lane; re-probe it.
   */
  readonly suspect: boolean;
}

export interface CalibrationReport {
  readonly lanes: readonly LaneCalibration[];
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = q * (sorted.length - 1);
  const below = Math.floor(rank);
  const lower = sorted[below] as number;
  const upper = sorted[Math.min(sorted.length - 1, below + 1)] as number;
  return lower + (upper - lower) * (rank - below);
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Expected versus actual per lane, from outcome records (in memory or read back from a decision log). */
export function calibrationOf(outcomes: Iterable<OutcomeRecord>): CalibrationReport {
  const byLane = new Map<string, OutcomeRecord[]>();
  for (const outcome of outcomes) {
    const list = byLane.get(outcome.lane);
    if (list) list.push(outcome);
    else byLane.set(outcome.lane, [outcome]);
  }
  const lanes: LaneCalibration[] = [];
  for (const [lane, list] of byLane) {
    const n = list.length;
    const gaps = list.map((o) => o.gap_s).sort((a, b) => a - b);
    const sum = (pick: (o: OutcomeRecord) => number) => list.reduce((s, o) => s + pick(o), 0);
    const over = list.filter((o) => o.gap_s > 0).length;
    lanes.push({
      lane,
      count: n,
      mean_expected_s: r3(sum((o) => o.expected_cost_s) / n),
      mean_actual_s: r3(sum((o) => o.actual_s) / n),
      mean_gap_s: r3(sum((o) => o.gap_s) / n),
      p95_gap_s: r3(quantile(gaps, 0.95)),
      over_expected: r3(over / n),
      deadline_misses: list.filter((o) => !o.met_deadline).length,
      suspect: n >= 20 && wilsonLowerBound(over, n, 2) > 0.05,
    });
  }
  return { lanes: lanes.sort((a, b) => a.lane.localeCompare(b.lane)) };
}

/** The outcome records of a decision log (JSON lines); other lines are skipped. */
export function outcomesFromLog(lines: Iterable<string>): OutcomeRecord[] {
  const outcomes: OutcomeRecord[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as Partial<OutcomeRecord>;
      if (value.type === 'outcome' && typeof value.lane === 'string' && typeof value.gap_s === 'number') {
        outcomes.push(value as OutcomeRecord);
      }
    } catch {
      // a torn last line of a log being written: skip it
    }
  }
  return outcomes;
}
