import { OTLPMetricExporter as OTLPMetricExporterJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPTraceExporterProto } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  ConsoleMetricExporter,
  type IMetricReader,
  InstrumentType,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { ExitBoundedMetricExporter, ExitBoundedSpanExporter } from './exit-bounded-exporter.ts';
import { EXPONENTIAL, histogramAggregationFromEnv, lanewatchViews } from './exponential-views.ts';
import {
  LanewatchInstrumentation,
  type LanewatchInstrumentationConfig,
  MIN_NODE,
  supportedNode,
} from './instrumentation.ts';
import { LaneConfigError, LaneMap, type LaneMapInput, parseLaneMapEnv } from './lane-map.ts';

export interface RunningLanewatch {
  readonly instrumentation: LanewatchInstrumentation;
  /** Exports what is pending and stops the SDK. Called by itself before the process exits. */
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
    lanes: config.lanes ?? lanesFromEnv(env),
  });
  const bounded: ExitBoundedExporters = [];
  const sdk = new NodeSDK({
    instrumentations: [instrumentation],
    metricReaders: metricReadersFromEnv(env, bounded),
    // Left to the NodeSDK (from the same variables) when it is not one OTLP/HTTP exporter.
    traceExporter: traceExporterFromEnv(env, bounded),
    // lanewatch's own histograms are exponential whatever the exporter prefers.
    views: histogramAggregationFromEnv(env)(InstrumentType.HISTOGRAM) === EXPONENTIAL ? lanewatchViews() : [],
  });
  sdk.start();

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

/** `LANEWATCH_LANE_MAP`, validated here so a typo is reported once, with what to fix, and the app still runs. */
function lanesFromEnv(env: NodeJS.ProcessEnv): LaneMapInput {
  try {
    const routes = parseLaneMapEnv(env.LANEWATCH_LANE_MAP);
    new LaneMap(routes);
    return routes;
  } catch (error) {
    if (!(error instanceof LaneConfigError)) throw error;
    process.stderr.write(`lanewatch: ${error.message}; lanes are named provider/model until it is fixed\n`);
    return [];
  }
}

/** The exporters `register` made, told when the process is exiting. */
type ExitBoundedExporters = Array<{ exiting(): void }>;

/** Milliseconds the exports made while the process exits may take. */
export const DEFAULT_EXIT_TIMEOUT_MS = 2000;

function exitTimeoutFromEnv(env: NodeJS.ProcessEnv, signal: 'METRICS' | 'TRACES'): number {
  const exit = positiveInt(env.LANEWATCH_EXIT_TIMEOUT, DEFAULT_EXIT_TIMEOUT_MS);
  const configured = positiveInt(
    env[`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`] ?? env.OTEL_EXPORTER_OTLP_TIMEOUT,
    Number.POSITIVE_INFINITY,
  );
  return Math.min(exit, configured);
}

/**
 * The OTLP/HTTP span exporter `OTEL_TRACES_EXPORTER` (unset or `otlp`) and the protocol variables
 * ask for, with its exit deadline; undefined for anything else (`none`, `console`, several, gRPC),
 * which the NodeSDK then builds from the same variables.
 */
export function traceExporterFromEnv(
  env: NodeJS.ProcessEnv,
  bounded: ExitBoundedExporters = [],
): SpanExporter | undefined {
  const kinds = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (kinds.length > 1 || (kinds.length === 1 && kinds[0] !== 'otlp')) return undefined;
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  ).trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') return undefined;
  const exporter = new ExitBoundedSpanExporter(
    (timeoutMillis) =>
      protocol === 'http/json'
        ? new OTLPTraceExporterJson(timeoutMillis === undefined ? {} : { timeoutMillis })
        : new OTLPTraceExporterProto(timeoutMillis === undefined ? {} : { timeoutMillis }),
    exitTimeoutFromEnv(env, 'TRACES'),
  );
  bounded.push(exporter);
  return exporter;
}

/** `OTEL_METRICS_EXPORTER` (`otlp` default, `console`, `none`) with `OTEL_EXPORTER_OTLP_*` settings. */
export function metricReadersFromEnv(
  env: NodeJS.ProcessEnv,
  bounded: ExitBoundedExporters = [],
): IMetricReader[] {
  const kinds = (env.OTEL_METRICS_EXPORTER ?? 'otlp')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (kinds.includes('none')) return [];
  const aggregationPreference = histogramAggregationFromEnv(env);
  const interval = positiveInt(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000);
  const timeout = Math.min(positiveInt(env.OTEL_METRIC_EXPORT_TIMEOUT, 30_000), interval);
  return kinds.map((kind) => {
    let exporter: PushMetricExporter;
    if (kind === 'console') exporter = new ConsoleMetricExporter();
    else {
      const protocol = (
        env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ??
        env.OTEL_EXPORTER_OTLP_PROTOCOL ??
        'http/protobuf'
      ).trim();
      const otlp = new ExitBoundedMetricExporter(
        (timeoutMillis) =>
          protocol === 'http/json'
            ? new OTLPMetricExporterJson({ aggregationPreference, ...(timeoutMillis && { timeoutMillis }) })
            : new OTLPMetricExporterProto({ aggregationPreference, ...(timeoutMillis && { timeoutMillis }) }),
        exitTimeoutFromEnv(env, 'METRICS'),
      );
      bounded.push(otlp);
      exporter = otlp;
    }
    return new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: interval,
      exportTimeoutMillis: timeout,
    });
  });
}

function positiveInt(value: string | undefined, fallback: number): number {
  const n = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}
