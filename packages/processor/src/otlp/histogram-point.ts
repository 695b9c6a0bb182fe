import type { ExplicitHistogram } from '../histogram/explicit-histogram.ts';
import type { ExponentialHistogram } from '../histogram/exponential-histogram.ts';

export type Temporality = 'delta' | 'cumulative';
export type AttributeValue = string | number | boolean;

/** One histogram data point of an OTLP request, validated and in the processor's own terms. */
export interface HistogramPoint {
  readonly metric: string;
  /**
   * Identity of the point's stream: resource attributes + scope + metric name + point attributes,
   * canonical (sorted). Two points of one cumulative stream share it; two app instances never do.
   */
  readonly stream: string;
  readonly temporality: Temporality;
  /** The data point's own attributes (where lanewatch puts lane, outcome, size class…). */
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  /** Start of the point's interval in epoch ms; 0 when the exporter did not set it. */
  readonly startTimeMs: number;
  /** End of the point's interval in epoch ms. */
  readonly timeMs: number;
  readonly data:
    | { readonly kind: 'exponential'; readonly histogram: ExponentialHistogram }
    | { readonly kind: 'explicit'; readonly histogram: ExplicitHistogram };
}

/** The histogram points of one export request, and the points that could not be read. */
export interface MetricsBatch {
  readonly points: HistogramPoint[];
  /** Data points rejected while reading (malformed or inconsistent). */
  rejected: number;
  /** Why, for the first few (`MAX_ERROR_MESSAGES`). */
  readonly errors: string[];
}

export const MAX_ERROR_MESSAGES = 8;

export function emptyBatch(): MetricsBatch {
  return { points: [], rejected: 0, errors: [] };
}

export function rejectPoints(batch: MetricsBatch, count: number, message: string): void {
  batch.rejected += count;
  if (batch.errors.length < MAX_ERROR_MESSAGES) batch.errors.push(message);
}
