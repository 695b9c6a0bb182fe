export { withAttempt } from './attempt-context.ts';
export { EXPONENTIAL, histogramAggregationFromEnv, lanewatchViews } from './exponential-views.ts';
export type { Format, FormatName, StreamDetector, StreamObserver } from './formats/stream-observer.ts';
export { LanewatchInstrumentation, type LanewatchInstrumentationConfig } from './instrumentation.ts';
export { LaneConfigError, type LaneMapInput, type LaneRoute, parseLaneMapEnv } from './lane-map.ts';
export * from './names.ts';
export type { ReaderChoices } from './own-meter.ts';
export { type RunningLanewatch, startLanewatch } from './start.ts';
export { VERSION } from './version.ts';
