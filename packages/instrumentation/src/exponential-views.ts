import {
  type AggregationSelector,
  AggregationType,
  InstrumentType,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import { INSTRUMENTATION_SCOPE } from './names.ts';

/**
 * 160 buckets at up to scale 20 keep a relative error near 2^(2^-scale)−1 over a wide range: a
 * histogram of 100 ms … 10 min stays at scale ≥ 4 (≈ 2 % error), where explicit buckets that end
 * at 10 s would put every long stream in the overflow bucket.
 */
export const EXPONENTIAL = {
  type: AggregationType.EXPONENTIAL_HISTOGRAM,
  options: { maxSize: 160, recordMinMax: true },
} as const;

/**
 * Views that make lanewatch's histograms exponential inside an existing SDK setup
 * (`new NodeSDK({ views: lanewatchViews(), … })`), whatever the exporter's default.
 */
export function lanewatchViews(): ViewOptions[] {
  return [
    { meterName: INSTRUMENTATION_SCOPE, instrumentType: InstrumentType.HISTOGRAM, aggregation: EXPONENTIAL },
  ];
}

/**
 * An exporter `aggregationPreference` that makes every histogram exponential, unless
 * `OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=explicit_bucket_histogram` asks otherwise
 * (the Node SDK does not apply that variable by itself).
 */
export function histogramAggregationFromEnv(env: NodeJS.ProcessEnv = process.env): AggregationSelector {
  const wanted = env.OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION?.trim().toLowerCase();
  const exponential = wanted !== 'explicit_bucket_histogram';
  return (type) =>
    type === InstrumentType.HISTOGRAM && exponential ? EXPONENTIAL : { type: AggregationType.DEFAULT };
}
