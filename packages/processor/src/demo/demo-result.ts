import { MILESTONE_QUANTILE_KEY, MILESTONES } from '@lanewatch/instrumentation/names';
import type { LaneCalibration } from '../admission/calibration.ts';
import type { LaneObservation } from '../lane-observation.ts';
import {
  commonEdges,
  type ReportData,
  type ReportLane,
  type ReportMilestone,
  sharesOf,
} from '../report/report-data.ts';
import { type DemoSnapshot, rankingOf } from './demo-snapshot.ts';
import { contrastLine } from './scoreboard.ts';

/** The one JSON document `lanewatch demo --json` prints (see the processor README for each field). */
export interface DemoResult {
  readonly schema: 'lanewatch.demo/v1';
  readonly duration_s: number;
  readonly stopped_by: string;
  readonly time_scale: number;
  readonly processor: {
    readonly url: string;
    readonly window_s: number;
    readonly slice_s: number;
    readonly interval_s: number;
    readonly min_samples: number;
  };
  readonly files: { readonly lane_health: string; readonly report: string };
  readonly lanes: readonly DemoLaneResult[];
  /** Lane names by expected cost of a whole answer, cheapest first; lanes without one last. */
  readonly ranking_by_expected_cost: readonly string[];
  /** The same for a job whose deadline is on the first visible text (seed 000's p95 TTFT). */
  readonly ranking_by_first_text_cost: readonly string[];
  readonly jobs: {
    readonly total: number;
    readonly admitted: number;
    readonly refused: number;
    readonly refused_by_cause: Readonly<Record<string, number>>;
    readonly deadline_met: number;
    readonly deadline_missed: number;
  };
  readonly calibration: readonly LaneCalibration[];
  /** The pair of lanes with close means and far-apart p95s, in a sentence; `null` if none qualifies yet. */
  readonly contrast: string | null;
}

export interface DemoLaneResult {
  readonly lane: string;
  readonly profile: string;
  readonly format: string;
  readonly role: string;
  readonly state: string;
  readonly samples: number;
  readonly min_samples: number;
  /** As in the lane-health record: p50/p95/p99 (s) and samples of the window's successful calls. */
  readonly quantiles: Readonly<Record<string, { p50: number; p95: number; p99: number; samples: number }>>;
  /** Means (s) of the same calls, from the histograms' sums: what an average-based dashboard shows. */
  readonly means: Readonly<Record<string, number>>;
  readonly tail_ratio: number | null;
  readonly expected_cost_s: number | null;
  readonly first_text_cost_s: number | null;
  readonly cutoffs: { readonly first_output_s: number | null; readonly total_s: number | null };
  readonly hedge: {
    readonly after_s: number | null;
    readonly allowed: boolean;
    readonly milestone: string | null;
  };
  readonly rates: Readonly<Record<string, number>> | null;
  /** What the demo's caller saw: calls made, by outcome and error class. */
  readonly calls: {
    readonly total: number;
    readonly outcomes: Readonly<Record<string, number>>;
    readonly errors: Readonly<Record<string, number>>;
  };
  readonly admitted: number;
  /** Jobs that `admit` did not send here, by the reason this lane was passed over. */
  readonly passed_over: Readonly<Record<string, number>>;
  readonly reasons: readonly string[];
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function demoResult(
  snapshot: DemoSnapshot,
  run: { durationS: number; stoppedBy: string; healthPath: string; reportPath: string; sliceS: number },
): DemoResult {
  const lanes = snapshot.lanes.map((view): DemoLaneResult => {
    const record = view.record;
    return {
      lane: view.demo.lane,
      profile: view.demo.profile,
      format: view.demo.format,
      role: view.demo.role,
      state: record?.state ?? 'unknown',
      samples: record?.samples ?? 0,
      min_samples: record?.min_samples ?? snapshot.minSamples,
      quantiles: record?.quantiles ?? {},
      means: Object.fromEntries(Object.entries(view.means).map(([k, v]) => [k, r6(v)])),
      tail_ratio: record?.tail_ratio ?? null,
      expected_cost_s: record?.expected_cost_s ?? null,
      first_text_cost_s: view.firstTextCostS,
      cutoffs: record?.cutoffs ?? { first_output_s: null, total_s: null },
      hedge: record?.hedge ?? { after_s: null, allowed: false, milestone: null },
      rates: record ? { ...record.rates } : null,
      calls: { total: view.tally.calls, outcomes: view.tally.outcomes, errors: view.tally.errors },
      admitted: view.tally.admitted,
      passed_over: view.tally.rejected,
      reasons: record?.reasons ?? [],
    };
  });
  return {
    schema: 'lanewatch.demo/v1',
    duration_s: r6(run.durationS),
    stopped_by: run.stoppedBy,
    time_scale: snapshot.timeScale,
    processor: {
      url: snapshot.processorUrl,
      window_s: snapshot.windowS,
      slice_s: run.sliceS,
      interval_s: snapshot.intervalS,
      min_samples: snapshot.minSamples,
    },
    files: { lane_health: run.healthPath, report: run.reportPath },
    lanes,
    ranking_by_expected_cost: rankingOf(snapshot.lanes, 'end'),
    ranking_by_first_text_cost: rankingOf(snapshot.lanes, 'first_text'),
    jobs: {
      total: snapshot.jobs.total,
      admitted: snapshot.jobs.admitted,
      refused: snapshot.jobs.refused,
      refused_by_cause: snapshot.jobs.refusedByCause,
      deadline_met: snapshot.jobs.met,
      deadline_missed: snapshot.jobs.missed,
    },
    calibration: snapshot.calibration.lanes,
    contrast: contrastLine(snapshot) ?? null,
  };
}

/** The report's data: histograms from the windows, quantiles and hints from the same records as the file. */
export function demoReportData(snapshot: DemoSnapshot, observations: readonly LaneObservation[]): ReportData {
  const byLane = new Map(observations.map((o) => [o.lane, o]));
  const distributions = observations.flatMap((o) => Object.values(o.ok).filter((d) => d !== undefined));
  const edges = commonEdges(distributions);
  const lanes = snapshot.lanes.map((view): ReportLane => {
    const observation = byLane.get(view.demo.lane);
    const record = view.record;
    const milestones: Record<string, ReportMilestone> = {};
    for (const milestone of MILESTONES) {
      const key = MILESTONE_QUANTILE_KEY[milestone];
      const d = observation?.ok[milestone];
      const q = record?.quantiles[key];
      if (!d || d.count === 0 || !q) continue;
      milestones[key] = {
        samples: q.samples,
        p50: q.p50,
        p95: q.p95,
        p99: q.p99,
        mean: view.means[key],
        shares: sharesOf(d, edges),
      };
    }
    const passedOver = Object.values(view.tally.rejected).reduce((s, n) => s + n, 0);
    return {
      lane: view.demo.lane,
      description: view.demo.role,
      format: view.demo.format,
      state: record?.state ?? 'unknown',
      samples: record?.samples ?? 0,
      min_samples: record?.min_samples ?? snapshot.minSamples,
      milestones,
      expected_cost_s: record?.expected_cost_s ?? null,
      first_text_cost_s: view.firstTextCostS,
      cutoffs: record?.cutoffs ?? { first_output_s: null, total_s: null },
      hedge: { after_s: record?.hedge.after_s ?? null, allowed: record?.hedge.allowed ?? false },
      rate_limited: record?.rates.rate_limited ?? 0,
      error_rate: record?.rates.error ?? 0,
      admitted: view.tally.admitted,
      passed_over: passedOver,
      reasons: record?.reasons ?? [],
    };
  });
  const j = snapshot.jobs;
  const contrast = contrastLine(snapshot);
  return {
    title: 'lanewatch demo: lane health',
    subtitle: `${lanes.length} simulated lanes at time scale ${snapshot.timeScale}, ${Math.round(snapshot.elapsedS)} s, window ${snapshot.windowS} s`,
    generated_at: new Date().toISOString(),
    edges,
    lanes,
    notes: [
      ...(contrast ? [contrast] : []),
      `jobs ${j.total}: admitted ${j.admitted} (deadline met ${j.met}, missed ${j.missed}), refused at once ${j.refused}`,
      'expected cost = p95 × (1 + retry rate) + handoff; admit picks the cheapest eligible lane whose cost fits the deadline minus a safety margin, and refuses at once when none does',
    ],
  };
}
