import { OTLPMetricExporter as OTLPMetricExporterJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import {
  ConsoleMetricExporter,
  type IMetricReader,
  InstrumentType,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { EXPONENTIAL, histogramAggregationFromEnv, lanewatchViews } from './exponential-views.ts';
import { LanewatchInstrumentation, type LanewatchInstrumentationConfig } from './instrumentation.ts';
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
  const instrumentation = new LanewatchInstrumentation({
    ...config,
    lanes: config.lanes ?? lanesFromEnv(env),
  });
  const sdk = new NodeSDK({
    instrumentations: [instrumentation],
    metricReaders: metricReadersFromEnv(env),
    // lanewatch's own histograms are exponential whatever the exporter prefers.
    views: histogramAggregationFromEnv(env)(InstrumentType.HISTOGRAM) === EXPONENTIAL ? lanewatchViews() : [],
  });
  sdk.start();

  let stopping: Promise<void> | undefined;
  const shutdown = () => {
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

/** `OTEL_METRICS_EXPORTER` (`otlp` default, `console`, `none`) with `OTEL_EXPORTER_OTLP_*` settings. */
export function metricReadersFromEnv(env: NodeJS.ProcessEnv): IMetricReader[] {
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
      exporter =
        protocol === 'http/json'
          ? new OTLPMetricExporterJson({ aggregationPreference })
          : new OTLPMetricExporterProto({ aggregationPreference });
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
