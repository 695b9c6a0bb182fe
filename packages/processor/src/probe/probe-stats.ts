import { MILESTONE_QUANTILE_KEY, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import type { MeasuredCall } from './instrumented-client.ts';

/** One milestone over a probe's calls: exact order statistics of the successful calls, in seconds. */
export interface MilestoneSummary {
  /** Successful calls that reached the milestone. */
  readonly ok: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  readonly max: number | null;
  /** Calls that failed (outcome `error`) without reaching the milestone. */
  readonly errors: number;
}

export interface ProbeSummary {
  /** Calls made, retries of a 429 included. */
  readonly calls: number;
  readonly outcomes: Readonly<Record<string, number>>;
  /** Failed calls by class (`rate_limited`, `http_5xx`, `timeout`, …). */
  readonly errors: Readonly<Record<string, number>>;
  /** Keyed `time_to_headers` … `duration`, as the lane-health record. */
  readonly milestones: Readonly<Record<string, MilestoneSummary>>;
  readonly output_tokens_per_second: { readonly p50: number; readonly samples: number } | null;
  /** Which phase took most of each successful call (the instrumentation's `lanewatch.diagnosis`). */
  readonly diagnoses: Readonly<Record<string, number>>;
}

/**
 * The q-quantile of sorted values by linear interpolation between the closest ranks (the "type 7"
 * estimator of R and NumPy's default): exact data, so no histogram error, and the same number a reader
 * would get from the raw samples.
 */
export function exactQuantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = q * (sorted.length - 1);
  const below = Math.floor(rank);
  const lower = sorted[below] as number;
  const upper = sorted[Math.min(sorted.length - 1, below + 1)] as number;
  return lower + (upper - lower) * (rank - below);
}

const seconds = (ms: number) => Math.round(ms * 1000) / 1e6;
const round = (x: number | null) => (x === null ? null : Math.round(x * 1e6) / 1e6);

function count(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

export function summarizeCalls(calls: readonly MeasuredCall[]): ProbeSummary {
  const outcomes: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const diagnoses: Record<string, number> = {};
  for (const call of calls) {
    count(outcomes, call.outcome);
    if (call.outcome === 'error') count(errors, call.errorType ?? 'other');
    if (call.outcome === 'ok' && call.diagnosis !== undefined) count(diagnoses, call.diagnosis);
  }
  const milestones: Record<string, MilestoneSummary> = {};
  for (const milestone of MILESTONES) {
    const values = calls
      .filter((c) => c.outcome === 'ok')
      .map((c) => c.milestonesMs[milestone])
      .filter((v): v is number => v !== undefined)
      .map(seconds)
      .sort((a, b) => a - b);
    const missed = calls.filter((c) => c.outcome === 'error' && c.milestonesMs[milestone] === undefined);
    milestones[MILESTONE_QUANTILE_KEY[milestone]] = {
      ok: values.length,
      p50: round(exactQuantile(values, 0.5)),
      p95: round(exactQuantile(values, 0.95)),
      p99: round(exactQuantile(values, 0.99)),
      max: values.length === 0 ? null : (values.at(-1) as number),
      errors: missed.length,
    };
  }
  const speeds = calls
    .filter((c) => c.outcome === 'ok')
    .map((c) => c.outputTokensPerSecond)
    .filter((v): v is number => v !== undefined)
    .sort((a, b) => a - b);
  const speed = exactQuantile(speeds, 0.5);
  return {
    calls: calls.length,
    outcomes,
    errors,
    milestones,
    output_tokens_per_second: speed === null ? null : { p50: round(speed) as number, samples: speeds.length },
    diagnoses,
  };
}

function cell(x: number | null): string {
  if (x === null) return '–';
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3);
}

/** The table `lanewatch probe` prints: one row per milestone, seconds from dispatch. */
export function probeTable(summary: ProbeSummary): string[] {
  const header = ['milestone', 'ok', 'p50 s', 'p95 s', 'p99 s', 'max s', 'errors'];
  const rows = MILESTONES.map((milestone: Milestone) => {
    const key = MILESTONE_QUANTILE_KEY[milestone];
    const m = summary.milestones[key] as MilestoneSummary;
    return [key, String(m.ok), cell(m.p50), cell(m.p95), cell(m.p99), cell(m.max), String(m.errors)];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  return [line(header), ...rows.map(line)];
}
