// Pure maths of OTLP exponential histograms (and explicit-bucket ones, coarser).
export { type ExplicitHistogram, explicitToExponential, subtractExplicit } from './explicit-histogram.ts';
export {
  type Buckets,
  cloneHistogram,
  DEFAULT_MAX_BUCKETS,
  downscale,
  type ExponentialHistogram,
  emptyHistogram,
  histogramOf,
  recordValue,
} from './exponential-histogram.ts';
export {
  bucketIndex,
  lowerBoundary,
  MAX_SCALE,
  MIN_SCALE,
  relativeErrorAt,
  upperBoundary,
} from './exponential-mapping.ts';
export { HistogramDistribution } from './histogram-distribution.ts';
export { mergeAll, mergeInto } from './merge.ts';
export { quantile } from './quantile.ts';
export { subtractHistogram } from './subtract.ts';
