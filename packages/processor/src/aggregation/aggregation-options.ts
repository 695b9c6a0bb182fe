import { DEFAULT_MAX_BUCKETS } from '../histogram/exponential-histogram.ts';

/** How the lane windows aggregate, and the caps that bound their memory. */
export interface AggregationOptions {
  /** Length of the sliding window (default 300 s). */
  readonly windowSeconds: number;
  /** Granularity of the window: it slides by whole slices (default 10 s). */
  readonly sliceSeconds: number;
  /** Bucket budget per sign of every merged histogram (default 160, as in the SDKs). */
  readonly maxBuckets: number;
  /** Cumulative streams remembered for deltas (default 50,000); points of new streams beyond it are rejected. */
  readonly maxStreams: number;
  /** Lanes held at once (default 1,000); points of new lanes beyond it are rejected. */
  readonly maxLanes: number;
  /** A stream not heard from for this long is forgotten (default twice the window). */
  readonly streamTtlSeconds: number;
}

export const DEFAULT_AGGREGATION_OPTIONS: AggregationOptions = {
  windowSeconds: 300,
  sliceSeconds: 10,
  maxBuckets: DEFAULT_MAX_BUCKETS,
  maxStreams: 50_000,
  maxLanes: 1_000,
  streamTtlSeconds: 600,
};

export class AggregationOptionsError extends Error {
  override readonly name = 'AggregationOptionsError';
}

function positiveInteger(name: keyof AggregationOptions, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new AggregationOptionsError(
      `aggregation option "${name}" must be a positive whole number, got ${value}`,
    );
  }
}

/** Defaults filled in and every value checked; the error names the option and what it must be. */
export function resolveAggregationOptions(options: Partial<AggregationOptions> = {}): AggregationOptions {
  const windowSeconds = options.windowSeconds ?? DEFAULT_AGGREGATION_OPTIONS.windowSeconds;
  const resolved: AggregationOptions = {
    ...DEFAULT_AGGREGATION_OPTIONS,
    streamTtlSeconds: 2 * windowSeconds,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  };
  for (const name of Object.keys(DEFAULT_AGGREGATION_OPTIONS) as (keyof AggregationOptions)[]) {
    positiveInteger(name, resolved[name]);
  }
  if (resolved.windowSeconds % resolved.sliceSeconds !== 0) {
    throw new AggregationOptionsError(
      `aggregation option "windowSeconds" (${resolved.windowSeconds}) must be a whole number of slices of ${resolved.sliceSeconds} s`,
    );
  }
  if (resolved.maxBuckets < 2) {
    throw new AggregationOptionsError(
      `aggregation option "maxBuckets" must be at least 2, got ${resolved.maxBuckets}`,
    );
  }
  if (resolved.streamTtlSeconds < resolved.windowSeconds) {
    throw new AggregationOptionsError(
      `aggregation option "streamTtlSeconds" (${resolved.streamTtlSeconds}) must be at least the window (${resolved.windowSeconds})`,
    );
  }
  return resolved;
}
