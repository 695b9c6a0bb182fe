import type { Distribution } from '../lane-observation.ts';

/**
 * What the HTML report draws, as plain data (JSON-safe): built from the processor's windows and records
 * at the end of a run, so the page needs nothing but itself.
 */
export interface ReportMilestone {
  /** Successful calls in the window that reached the milestone. */
  readonly samples: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly mean: number | undefined;
  /** Share of the calls in each bin of the report's common axis (sums to 1). */
  readonly shares: readonly number[];
}

export interface ReportLane {
  readonly lane: string;
  /** One line on what the lane is (the simulator profile, the role it plays). */
  readonly description: string;
  readonly format: string;
  readonly state: string;
  readonly samples: number;
  readonly min_samples: number;
  /** By quantile key (`time_to_headers` … `duration`); a milestone never reached is absent. */
  readonly milestones: Readonly<Record<string, ReportMilestone>>;
  readonly expected_cost_s: number | null;
  readonly first_text_cost_s: number | null;
  readonly cutoffs: { readonly first_output_s: number | null; readonly total_s: number | null };
  readonly hedge: { readonly after_s: number | null; readonly allowed: boolean };
  readonly rate_limited: number;
  readonly error_rate: number;
  readonly admitted: number;
  readonly passed_over: number;
  readonly reasons: readonly string[];
}

export interface ReportData {
  readonly title: string;
  readonly generated_at: string;
  readonly subtitle: string;
  /** The common log axis, seconds: `edges.length === shares.length + 1` for every milestone. */
  readonly edges: readonly number[];
  readonly lanes: readonly ReportLane[];
  /** Short statements shown under the title (jobs admitted and refused, the contrast of two lanes). */
  readonly notes: readonly string[];
}

const NICE = [1, 2, 5];

/** The largest 1-2-5 value ≤ x, and the smallest ≥ x. */
export function niceBelow(x: number): number {
  const decade = 10 ** Math.floor(Math.log10(x));
  return decade * ([...NICE].reverse().find((n) => n * decade <= x * (1 + 1e-9)) ?? 1);
}

export function niceAbove(x: number): number {
  const decade = 10 ** Math.floor(Math.log10(x));
  const n = NICE.find((m) => m * decade >= x * (1 - 1e-9));
  return n === undefined ? 10 * decade : n * decade;
}

/**
 * A common log-spaced axis for every lane and milestone: from the smallest 0.5th percentile to the
 * largest maximum (or 99.9th percentile), widened to 1-2-5 values, in `bins` bins.
 */
export function commonEdges(distributions: readonly Distribution[], bins = 60): number[] {
  let low = Infinity;
  let high = 0;
  for (const d of distributions) {
    if (d.count === 0) continue;
    low = Math.min(low, d.quantile(0.005) ?? Infinity);
    high = Math.max(high, d.max ?? d.quantile(0.999) ?? 0);
  }
  if (!Number.isFinite(low) || high <= 0) {
    low = 0.01;
    high = 10;
  }
  low = niceBelow(Math.max(low, 1e-3));
  high = niceAbove(Math.max(high, low * 2));
  const ratio = Math.log(high / low);
  return Array.from({ length: bins + 1 }, (_, i) => low * Math.exp((ratio * i) / bins));
}

/**
 * The share of calls in each bin, read off the distribution's quantile function at `points` evenly
 * spaced probabilities: works for any `Distribution` and stays within its relative-error bound.
 */
export function sharesOf(d: Distribution, edges: readonly number[], points = 400): number[] {
  const shares = new Array<number>(Math.max(0, edges.length - 1)).fill(0);
  if (d.count === 0 || shares.length === 0) return shares;
  const last = shares.length - 1;
  for (let i = 0; i < points; i++) {
    const x = d.quantile((i + 0.5) / points);
    if (x === undefined) continue;
    let bin = 0;
    while (bin < last && x >= (edges[bin + 1] as number)) bin++;
    shares[bin] = (shares[bin] as number) + 1 / points;
  }
  return shares;
}

export function reportMilestoneOf(d: Distribution, edges: readonly number[]): ReportMilestone {
  return {
    samples: d.count,
    p50: d.quantile(0.5) ?? 0,
    p95: d.quantile(0.95) ?? 0,
    p99: d.quantile(0.99) ?? 0,
    mean: d.sum === undefined || d.count === 0 ? undefined : d.sum / d.count,
    shares: sharesOf(d, edges),
  };
}
