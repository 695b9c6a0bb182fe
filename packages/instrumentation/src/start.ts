import { diag, trace } from '@opentelemetry/api';
import { OTLPMetricExporter as OTLPMetricExporterGrpc } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPMetricExporter as OTLPMetricExporterJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterGrpc } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPTraceExporterProto } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  envDetector,
  hostDetector,
  osDetector,
  processDetector,
  type ResourceDetector,
  serviceInstanceIdDetector,
} from '@opentelemetry/resources';
import {
  ConsoleMetricExporter,
  type IMetricReader,
  InstrumentType,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ExitBoundedMetricExporter, ExitBoundedSpanExporter } from './exit-bounded-exporter.ts';
import { EXPONENTIAL, histogramAggregationFromEnv, lanewatchViews } from './exponential-views.ts';
import {
  LanewatchInstrumentation,
  type LanewatchInstrumentationConfig,
  MIN_NODE,
  supportedNode,
} from './instrumentation.ts';
import { laneMapFromEnv } from './lane-map.ts';
import { INSTRUMENTATION_SCOPE } from './names.ts';
import { OwnMeter } from './own-meter.ts';
import { OwnTracer, sdkSpanIdentity } from './own-tracer.ts';
import { shown, stderrOnce } from './stderr-once.ts';
import { VERSION } from './version.ts';

export interface RunningLanewatch {
  readonly instrumentation: LanewatchInstrumentation;
  /**
   * Exports what is pending and stops the SDK, within the exit deadline. Called by itself when the
   * event loop empties (`beforeExit`); an application that ends by `process.exit()` or in a signal
   * handler of its own awaits it first.
   */
  shutdown(): Promise<void>;
}

/**
 * Starts the Node SDK the way `register` does. Exposed for tests and for programs that want the
 * same setup with options (`startLanewatch({ lanes: { fast: 'http://…/v1' } })`).
 */
export function startLanewatch(
  config: LanewatchInstrumentationConfig = {},
  env: NodeJS.ProcessEnv = process.env,
): RunningLanewatch | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  if (!supportedNode()) {
    // Said once, where a developer sees it (the diag logger is silent by default); the app runs.
    process.stderr.write(
      `lanewatch: Node ${process.version} is not supported (needs ${MIN_NODE.join('.')} or later); nothing is measured\n`,
    );
    return null;
  }
  // register owns the SDK's shutdown, so it can hold finished calls back and record them in batches
  // (see `batchRecording`), flushing them first.
  const instrumentation = new LanewatchInstrumentation({
    batchRecording: true,
    ...config,
    lanes: config.lanes ?? laneMapFromEnv(env.LANEWATCH_LANE_MAP, stderrOnce),
    spans: config.spans ?? spansFromEnv(env),
    inferRetries: config.inferRetries ?? inferRetriesFromEnv(env),
  });
  const bounded: ExitBoundedExporters = [];
  // lanewatch's histograms go through a meter provider of its own, into the SDK's readers (see
  // `OwnMeter`): recording a call then costs far less. Held calls are recorded before each collection.
  const own = new OwnMeter(() => instrumentation.flush());
  const metricReaders = metricReadersFromEnv(env, bounded, stderrOnce, own);
  // lanewatch's own histograms are exponential whatever the exporter prefers.
  const views =
    histogramAggregationFromEnv(env)(InstrumentType.HISTOGRAM) === EXPONENTIAL ? lanewatchViews() : [];
  instrumentation.useOwnMeter(own.meter(views), own.sets);
  // Left to the NodeSDK (from the same variables) when it is not one OTLP exporter.
  const traceExporter = traceExporterFromEnv(env, bounded);
  // lanewatch's spans are made by lanewatch and handed to the SDK's span processor (see
  // `OwnTracer`) when nothing asks for what only the SDK's tracer does; the processor is then made
  // here, as the NodeSDK would make it, so both can use it.
  const sampler =
    traceExporter === undefined || instrumentation.getConfig().spans === false
      ? undefined
      : ownSpanSamplerFromEnv(env);
  const spanProcessor =
    traceExporter === undefined || sampler === undefined
      ? undefined
      : batchSpanProcessorFromEnv(traceExporter, env);
  const sdk = new NodeSDK({
    instrumentations: [instrumentation],
    resourceDetectors: resourceDetectorsFromEnv(env),
    metricReaders,
    ...(spanProcessor === undefined ? { traceExporter } : { spanProcessors: [spanProcessor] }),
    views,
  });
  sdk.start();
  if (spanProcessor !== undefined && sampler !== undefined) {
    const identity = sdkSpanIdentity(trace.getTracer(INSTRUMENTATION_SCOPE, VERSION));
    if (identity !== undefined)
      instrumentation.useOwnTracer(new OwnTracer({ spanProcessor, sampler, ...identity }));
  }

  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    // The last exports get the exit deadline: a collector that is down must not hold the exit.
    for (const exporter of bounded) exporter.exiting();
    // Held calls go to the SDK before it shuts down: its span processor takes no span after that.
    instrumentation.flush();
    stopping ??= sdk.shutdown().catch(() => {});
    return stopping;
  };
  // The last interval's points are exported when the event loop empties; `beforeExit` may fire
  // again after this async work, which `stopping` makes harmless.
  process.once('beforeExit', () => void shutdown());
  return { instrumentation, shutdown };
}

/** The Node SDK's resource detectors by name (`OTEL_NODE_RESOURCE_DETECTORS`). */
const RESOURCE_DETECTORS: ReadonlyMap<string, ResourceDetector> = new Map([
  ['host', hostDetector],
  ['os', osDetector],
  ['serviceinstance', serviceInstanceIdDetector],
  ['process', processDetector],
  ['env', envDetector],
]);

/**
 * The process detector without the command line: `process.command_args` would put every argument
 * the application was started with — `--api-key=…` too — on every span and metric export. The rest
 * (pid, executable, runtime, owner, `process.command`: the script) is kept.
 */
const processWithoutCommandLine: ResourceDetector = {
  detect(config) {
    const { attributes, ...rest } = processDetector.detect(config);
    const { 'process.command_args': _args, 'process.command_line': _line, ...kept } = attributes ?? {};
    return { ...rest, attributes: kept };
  },
};

/**
 * The resource detectors the Node SDK would choose from `OTEL_NODE_RESOURCE_DETECTORS` (unset: its
 * default list; `all`, `none`, or names), with the process detector's command line left out.
 */
export function resourceDetectorsFromEnv(env: NodeJS.ProcessEnv): ResourceDetector[] {
  const names = (env.OTEL_NODE_RESOURCE_DETECTORS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  let detectors: ResourceDetector[];
  if (names.length === 0) {
    detectors = [serviceInstanceIdDetector, processDetector, hostDetector, osDetector, envDetector];
  } else if (names.includes('all')) detectors = [...RESOURCE_DETECTORS.values()];
  else if (names.includes('none')) detectors = [];
  else {
    detectors = names.flatMap((name) => {
      const detector = RESOURCE_DETECTORS.get(name);
      if (detector === undefined)
        diag.warn(`Invalid resource detector "${name}" in OTEL_NODE_RESOURCE_DETECTORS`);
      return detector === undefined ? [] : [detector];
    });
  }
  return detectors.map((detector) => (detector === processDetector ? processWithoutCommandLine : detector));
}

/**
 * `LANEWATCH_SPANS`: `false` leaves lanewatch's spans out (its histograms, all the processor reads,
 * are still recorded) while the application's own tracing goes on. Unset, empty or `true`: spans.
 * Anything else is reported once on stderr with what to write, and the spans stay on.
 */
export function spansFromEnv(env: NodeJS.ProcessEnv, warn: (message: string) => void = stderrOnce): boolean {
  return onUnlessFalse(env, 'LANEWATCH_SPANS', "lanewatch's spans stay on", warn);
}

/**
 * `LANEWATCH_INFER_RETRIES`: `false` numbers a call's attempt only from its retry header and the
 * caller's context (`withAttempt`), for a load generator that sends one request over and over; see
 * `inferRetries`. Unset, empty or `true`: on. Anything else is reported once, and it stays on.
 */
export function inferRetriesFromEnv(
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void = stderrOnce,
): boolean {
  return onUnlessFalse(env, 'LANEWATCH_INFER_RETRIES', 'repeated requests are still taken for retries', warn);
}

/** A switch that is on unless set to `false` (in any case); anything else is named once with `meanwhile`. */
function onUnlessFalse(
  env: NodeJS.ProcessEnv,
  name: string,
  meanwhile: string,
  warn: (message: string) => void,
): boolean {
  const value = env[name]?.trim();
  const lower = value?.toLowerCase();
  if (value === undefined || lower === '' || lower === 'true') return true;
  if (lower === 'false') return false;
  // Shown as written: `shown` keeps a mixed-case value, which may be a secret, out of the message.
  warn(`lanewatch: ${name}=${shown(value)} is not true or false; ${meanwhile} until it is fixed`);
  return true;
}

/** The variables that set span limits: with any of them, lanewatch's spans go through the SDK's tracer. */
const SPAN_LIMIT_VARIABLES = [
  'OTEL_ATTRIBUTE_COUNT_LIMIT',
  'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
  'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT',
  'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
  'OTEL_SPAN_EVENT_COUNT_LIMIT',
  'OTEL_SPAN_LINK_COUNT_LIMIT',
  'OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT',
  'OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT',
  'OTEL_LINK_ATTRIBUTE_COUNT_LIMIT',
  'OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT',
];

/**
 * The sampler lanewatch's own spans decide with (see `OwnTracer`): the one the Node SDK builds when
 * `OTEL_TRACES_SAMPLER` is unset, `parentbased_always_on` or `always_on`. Undefined — the spans then
 * go through the SDK's tracer — when the variables ask for what only the SDK's tracer does: another
 * sampler, span limits (which could cut a span), or the SDK's metrics about its own spans.
 */
export function ownSpanSamplerFromEnv(env: NodeJS.ProcessEnv): Sampler | undefined {
  if (SPAN_LIMIT_VARIABLES.some((name) => env[name]?.trim())) return undefined;
  if (env.OTEL_NODE_EXPERIMENTAL_SDK_METRICS?.trim().toLowerCase() === 'true') return undefined;
  const sampler = env.OTEL_TRACES_SAMPLER;
  if (sampler === undefined || sampler.trim() === '' || sampler === 'parentbased_always_on') {
    return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
  return sampler === 'always_on' ? new AlwaysOnSampler() : undefined;
}

/** The batch span processor the Node SDK makes for `exporter`, with the same `OTEL_BSP_*` settings. */
export function batchSpanProcessorFromEnv(
  exporter: SpanExporter,
  env: NodeJS.ProcessEnv,
): BatchSpanProcessor {
  // The SDK's rule: a setting that is not a number above 0 is left to the default.
  const setting = (name: string): number | undefined => {
    const value = env[name]?.trim();
    const n = value ? Number(value) : Number.NaN;
    return n > 0 ? n : undefined;
  };
  return new BatchSpanProcessor({
    exporter,
    maxQueueSize: setting('OTEL_BSP_MAX_QUEUE_SIZE'),
    scheduledDelayMillis: setting('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: setting('OTEL_BSP_EXPORT_TIMEOUT'),
    maxExportBatchSize: setting('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  });
}

/** The exporters `register` made, told when the process is exiting. */
type ExitBoundedExporters = Array<{ exiting(): void }>;

/** Milliseconds the exports made while the process exits may take. */
export const DEFAULT_EXIT_TIMEOUT_MS = 2000;
const MAX_EXIT_TIMEOUT_MS = 600_000;

/**
 * The exit deadline of one signal's exports: `LANEWATCH_EXIT_TIMEOUT` (ms; 2000 when unset or empty),
 * never more than the signal's OTLP timeout. A value that is not a whole number of milliseconds from 1 to 600000 is
 * reported once on stderr, with what to write, and the default is used.
 */
export function exitTimeoutFromEnv(
  env: NodeJS.ProcessEnv,
  signal: 'METRICS' | 'TRACES',
  warn: (message: string) => void = stderrOnce,
): number {
  const value = env.LANEWATCH_EXIT_TIMEOUT?.trim();
  let exit = DEFAULT_EXIT_TIMEOUT_MS;
  if (value !== undefined && value !== '') {
    exit = /^\d+$/.test(value) ? Number(value) : 0;
    // Up to 10 minutes: a timer cannot wait longer than 2^31 − 1 ms, and an exit should not.
    if (exit < 1 || exit > MAX_EXIT_TIMEOUT_MS) {
      warn(
        `lanewatch: LANEWATCH_EXIT_TIMEOUT=${shown(value)} is not a whole number of milliseconds from 1 to ${MAX_EXIT_TIMEOUT_MS} (e.g. 2000); ` +
          `exports made while the process exits get ${DEFAULT_EXIT_TIMEOUT_MS} ms until it is fixed`,
      );
      exit = DEFAULT_EXIT_TIMEOUT_MS;
    }
  }
  const configured = positiveInt(
    env[`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`] ?? env.OTEL_EXPORTER_OTLP_TIMEOUT,
    Number.POSITIVE_INFINITY,
  );
  return Math.min(exit, configured);
}

/** The OTLP protocols `register` exports over (`OTEL_EXPORTER_OTLP_PROTOCOL`). */
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/**
 * `OTEL_EXPORTER_OTLP_<signal>_PROTOCOL`, else (unset or empty) `OTEL_EXPORTER_OTLP_PROTOCOL`, else
 * `http/protobuf`.
 * A value that is none of the three is reported once on stderr, with what to write instead, and
 * http/protobuf is used (as the Node SDK does), so nothing is lost silently to a typo.
 */
export function otlpProtocolFromEnv(
  env: NodeJS.ProcessEnv,
  signal: 'METRICS' | 'TRACES',
  warn: (message: string) => void = stderrOnce,
): OtlpProtocol {
  const specific = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const variable = env[specific]?.trim() ? specific : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = env[variable]?.trim();
  if (value === undefined || value === '') return 'http/protobuf';
  if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
  warn(
    `lanewatch: ${variable}=${shown(value)} is not one of ${OTLP_PROTOCOLS.join(', ')}; ` +
      `${signal === 'METRICS' ? 'metrics' : 'spans'} are exported over http/protobuf until it is fixed`,
  );
  return 'http/protobuf';
}

/**
 * The OTLP span exporter `OTEL_TRACES_EXPORTER` (unset or `otlp`) and the protocol variables ask
 * for (http/protobuf, http/json or grpc), with its exit deadline; undefined for anything else
 * (`none`, `console`, `zipkin`, several), which the NodeSDK then builds from the same variables.
 */
export function traceExporterFromEnv(
  env: NodeJS.ProcessEnv,
  bounded: ExitBoundedExporters = [],
  warn: (message: string) => void = stderrOnce,
): SpanExporter | undefined {
  const kinds = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = kinds.filter((kind) => !TRACES_EXPORTERS.includes(kind));
  if (unknown.length > 0) {
    // The Node SDK says this only through its diag logger, which is silent by default.
    warn(
      `lanewatch: OTEL_TRACES_EXPORTER ${unknown.map(shown).join(', ')} is not one the Node SDK builds ` +
        `(${TRACES_EXPORTERS.join(', ')}); left out`,
    );
  }
  if (kinds.length > 1 || (kinds.length === 1 && kinds[0] !== 'otlp')) return undefined;
  const protocol = otlpProtocolFromEnv(env, 'TRACES', warn);
  const exporter = new ExitBoundedSpanExporter(
    (timeoutMillis) => {
      const options = timeoutMillis === undefined ? {} : { timeoutMillis };
      if (protocol === 'grpc') return new OTLPTraceExporterGrpc(options);
      if (protocol === 'http/json') return new OTLPTraceExporterJson(options);
      return new OTLPTraceExporterProto(options);
    },
    exitTimeoutFromEnv(env, 'TRACES'),
  );
  bounded.push(exporter);
  return exporter;
}

/** The `OTEL_TRACES_EXPORTER` values the Node SDK builds an exporter for. */
const TRACES_EXPORTERS = ['otlp', 'zipkin', 'console', 'none'];

/** The `OTEL_METRICS_EXPORTER` values `register` understands. */
const METRICS_EXPORTERS = ['otlp', 'console', 'none'];

/**
 * `OTEL_METRICS_EXPORTER` (`otlp` default, `console`, `none`) with `OTEL_EXPORTER_OTLP_*` settings
 * (http/protobuf, http/json or grpc). Any other exporter is reported once on stderr and left out.
 * With `own`, every reader also collects lanewatch's own meter.
 */
export function metricReadersFromEnv(
  env: NodeJS.ProcessEnv,
  bounded: ExitBoundedExporters = [],
  warn: (message: string) => void = stderrOnce,
  own?: OwnMeter,
): IMetricReader[] {
  const listed = (env.OTEL_METRICS_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  // Empty is unset, as the specification says: lanewatch's histograms are all the processor reads.
  const kinds = listed.length === 0 ? ['otlp'] : listed;
  if (kinds.includes('none')) return [];
  const unknown = kinds.filter((kind) => !METRICS_EXPORTERS.includes(kind));
  if (unknown.length > 0) {
    warn(
      `lanewatch: OTEL_METRICS_EXPORTER ${unknown.map(shown).join(', ')} ` +
        `is not one lanewatch exports to (${METRICS_EXPORTERS.join(', ')}); left out. lanewatch's ` +
        'histograms are exponential: send them over otlp, to a collector that writes Prometheus native histograms',
    );
  }
  const aggregationPreference = histogramAggregationFromEnv(env);
  const interval = positiveInt(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000);
  const timeout = Math.min(positiveInt(env.OTEL_METRIC_EXPORT_TIMEOUT, 30_000), interval);
  return kinds
    .filter((kind) => kind === 'otlp' || kind === 'console')
    .map((kind) => {
      let exporter: PushMetricExporter;
      if (kind === 'console') exporter = new ConsoleMetricExporter();
      else {
        const protocol = otlpProtocolFromEnv(env, 'METRICS', warn);
        const otlp = new ExitBoundedMetricExporter(
          (timeoutMillis) => {
            const options = { aggregationPreference, ...(timeoutMillis && { timeoutMillis }) };
            if (protocol === 'grpc') return new OTLPMetricExporterGrpc(options);
            if (protocol === 'http/json') return new OTLPMetricExporterJson(options);
            return new OTLPMetricExporterProto(options);
          },
          exitTimeoutFromEnv(env, 'METRICS'),
        );
        bounded.push(otlp);
        exporter = otlp;
      }
      const reader: PeriodicExportingMetricReader = new PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: interval,
        exportTimeoutMillis: timeout,
        metricProducers: own === undefined ? [] : [own.producerFor(() => reader)],
      });
      return reader;
    });
}

/** A whole number of 1 or more (a fraction rounded down), else `fallback`. */
function positiveInt(value: string | undefined, fallback: number): number {
  const n = value === undefined ? Number.NaN : Math.floor(Number(value));
  return Number.isFinite(n) && n >= 1 ? n : fallback;
}
