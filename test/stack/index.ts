// Local processes for the end-to-end tests: the built collector, a private Prometheus, Redis, and an
// OTLP sink. Every start* returns a handle with its URLs, its log file and stop(); whatever a test
// leaves running is killed when the test process ends, failed or not.
//
//   const sink = await startOtlpSink();                      // { url, requests, waitFor(), close() }
//   const prometheus = await startPrometheus();              // { url, remoteWriteUrl, query(), series(), stop() }
//   const collector = await startCollector({                 // builds once (cached), then runs
//     processorEndpoint: 'http://127.0.0.1:4320',            //   collector-config/collector.yaml
//     remoteWriteUrl: prometheus.remoteWriteUrl,
//     tracesEndpoint, logsEndpoint, processorToken,          //   optional overlays
//   });                                                      // { otlpHttpUrl, otlpGrpcEndpoint, healthUrl, … }
//   const redis = await ensureRedis();                       // redis://127.0.0.1:6379, shared, stop() is a no-op
//   const own = await startPrivateRedis();                   // its own port; stop(), start(), restart()
//   after(async () => { await collector.stop(); await prometheus.stop(); await sink.close(); });
//   const stack = await startCollectorStack({ tracesAndLogs, processorToken }); // all three; stack.stop()
//   stackLogFiles()                                          // every log written, to search for canaries
export {
  buildCollector,
  type Collector,
  type CollectorConfigName,
  type CollectorOptions,
  collectorConfigPath,
  startCollector,
  validateCollectorConfig,
} from './collector.ts';
export { type CollectorStack, type CollectorStackOptions, startCollectorStack } from './collector-stack.ts';
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
