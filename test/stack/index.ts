// Local processes for the end-to-end tests: the built collector, a private Prometheus, Redis, and an
// OTLP sink. Every start* returns a handle with its URLs, its log file and stop(); whatever a test
// leaves running is killed when the test process ends, failed or not.
export {
  buildCollector,
  type Collector,
  type CollectorConfigName,
  type CollectorOptions,
  collectorConfigPath,
  startCollector,
  validateCollectorConfig,
} from './collector.ts';
export {
  killAllStackProcesses,
  type ManagedProcess,
  stackLogDir,
  stackLogFiles,
  startProcess,
} from './managed-process.ts';
export { type OtlpRequest, type OtlpSink, startOtlpSink } from './otlp-sink.ts';
export {
  type NativeHistogramValue,
  type Prometheus,
  type PromSample,
  startPrometheus,
} from './prometheus.ts';
export {
  ensureRedis,
  type PrivateRedis,
  redisAnswers,
  type SharedRedis,
  startPrivateRedis,
} from './redis.ts';
export { freePort, StackStartError, waitUntilReady } from './wait.ts';
