// Sliding windows of merged histograms per lane, read as LaneObservations.
export {
  type AggregationOptions,
  AggregationOptionsError,
  DEFAULT_AGGREGATION_OPTIONS,
  resolveAggregationOptions,
} from './aggregation-options.ts';
export { isLaneMetric, type LaneLabels, laneLabelsOf } from './lane-labels.ts';
export { type LaneWindowStats, LaneWindows } from './lane-windows.ts';
