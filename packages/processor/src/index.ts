// @lanewatch/processor — lane hints from lanewatch histograms, into a shared lane-health store.

export {
  type AdmissionController,
  type AdmissionControllerOptions,
  createAdmissionController,
  type DecisionLog,
  decisionLogFile,
} from './admission/admission-controller.ts';
export {
  type AdmissionDecision,
  type AdmissionJob,
  AdmissionJobError,
  type AdmissionOptions,
  admit,
  expectedCostFor,
  type LaneConsidered,
  type RejectionReason,
} from './admission/admit.ts';
export {
  type CalibrationReport,
  calibrationOf,
  type LaneCalibration,
  type OutcomeRecord,
  outcomesFromLog,
} from './admission/calibration.ts';
export {
  DEFAULT_SCORECARD,
  evaluateLane,
  type LaneEvaluation,
  type LaneEvaluationInput,
} from './evaluation/evaluate-lane.ts';
export { DEFAULT_EVALUATION_CONFIG, type LaneEvaluationConfig } from './evaluation/evaluation-config.ts';
export { exactDistribution } from './evaluation/exact-distribution.ts';
export {
  isStale,
  LANE_STATES,
  type LaneCutoffs,
  type LaneHealth,
  type LaneHealthView,
  type LaneHedge,
  type LaneRates,
  type LaneScorecard,
  type LaneState,
  type MilestoneQuantiles,
  viewOf,
} from './evaluation/lane-health.ts';
export { initialMemory, type LaneMemory, memoryFromRecord } from './evaluation/lane-memory.ts';
export { createLaneFeed, type LaneFeed } from './feed/lane-feed.ts';
export type { Distribution, LaneObservation } from './lane-observation.ts';
export {
  evaluationConfigOf,
  type LaneDefinition,
  type LanesFile,
  laneMapOf,
  loadLanesFile,
  parseLanesFile,
  scorecardOf,
} from './lanes-file/lanes-file.ts';
export { LanesFileError, type LanesFileProblem } from './lanes-file/lanes-file-error.ts';
export { createLaneReader, type LaneReader, type LaneReaderOptions } from './reader/lane-reader.ts';
export { createAggregationWindows } from './server/aggregation-windows.ts';
export { createEvaluationLoop, type EvaluationLoop } from './server/evaluation-loop.ts';
export type { LaneObservationSource, LaneWindows, ObservedLane } from './server/observation-source.ts';
export {
  GrpcListenError,
  type ProcessorOptions,
  type RunningProcessor,
  startProcessor,
} from './server/processor.ts';
export { createFileStore, type LaneHealthDocument } from './store/file-store.ts';
export type { LaneHealthStore, StoreKind, StoreStatus } from './store/lane-health-store.ts';
export { createMemoryStore } from './store/memory-store.ts';
export { DEFAULT_STORE_URL, openLaneHealthStore, StoreUrlError } from './store/open-store.ts';
export { redisLayout } from './store/redis-layout.ts';
export { createRedisStore } from './store/redis-store.ts';
export { MetricsExportConfigError, metricsExportFromEnv } from './telemetry/export-config.ts';
export {
  DECISION_REASONS,
  type DecisionReason,
  type InstrumentName,
  PROCESSOR_INSTRUMENT,
  PROCESSOR_METER,
  STATE_CODE,
  TELEMETRY_ATTR,
} from './telemetry/instrument-names.ts';
export type { MetricsExportOptions, OtlpHttpProtocol } from './telemetry/metrics-export.ts';
