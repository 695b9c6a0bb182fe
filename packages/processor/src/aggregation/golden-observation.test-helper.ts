import type { Distribution, LaneObservation } from '../lane-observation.ts';

// The JSON form of observations in golden files: distributions as their count, sum, extremes, bound
// and quantiles, numbers rounded to 9 significant digits so that a golden file does not depend on
// the last bit of floating-point rounding.

function round(v: number | undefined): number | null {
  return v === undefined ? null : Number(v.toPrecision(9));
}

export function distributionJson(d: Distribution | undefined) {
  if (d === undefined) return null;
  return {
    count: d.count,
    sum: round(d.sum),
    min: round(d.min),
    max: round(d.max),
    relativeError: round(d.relativeError),
    p50: round(d.quantile(0.5)),
    p95: round(d.quantile(0.95)),
    p99: round(d.quantile(0.99)),
  };
}

function distributionsJson(ds: Partial<Record<string, Distribution>>) {
  return Object.fromEntries(Object.entries(ds).map(([k, d]) => [k, distributionJson(d)]));
}

export function observationJson(o: LaneObservation) {
  return {
    lane: o.lane,
    sizeClass: o.sizeClass ?? null,
    windowSeconds: o.windowSeconds,
    windowEnd: new Date(o.windowEnd).toISOString(),
    calls: o.calls,
    outcomes: o.outcomes,
    errorTypes: o.errorTypes,
    retries: o.retries,
    models: o.models,
    providers: o.providers,
    ok: distributionsJson(o.ok),
    all: distributionsJson(o.all),
    outputTokensPerSecond: distributionJson(o.outputTokensPerSecond),
  };
}
