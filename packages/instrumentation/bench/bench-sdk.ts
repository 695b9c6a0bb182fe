// The OpenTelemetry pipeline every instrumented benchmark process runs: the SDK's tracer and meter
// providers at their defaults (batch span processor; metric export at the default 60 s interval,
// as applications run it), lanewatch's exponential-histogram views, and exporters that drop what
// they get — so a measurement is the instrumentation's own cost, not a network's.
import diagnosticsChannel from 'node:diagnostics_channel';
import { INSTRUMENTATION_SCOPE, LanewatchInstrumentation, lanewatchViews } from '@lanewatch/instrumentation';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { SdkFloor } from './sdk-floor.ts';

export const MODES = [
  'none',
  'lanewatch',
  'lanewatch-unbatched',
  'lanewatch-metrics',
  'lanewatch-no-sdk',
  'otel-undici',
  'sdk-floor',
] as const;
export type Mode = (typeof MODES)[number];

export interface BenchSdk {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
}

/** Registers the global SDK pipeline; the same for every instrumented mode. */
export function startBenchSdk(): BenchSdk {
  const dropSpans: SpanExporter = { export: (_s, done) => done({ code: 0 }), shutdown: async () => {} };
  const dropMetrics: PushMetricExporter = {
    export: (_m, done) => done({ code: 0 }),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracerProvider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: dropSpans })],
  });
  const meterProvider = new MeterProvider({
    views: lanewatchViews(),
    readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 60_000 })],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  return { tracerProvider, meterProvider };
}

/**
 * Starts the SDK and the mode's instrumentation. `lanewatch` runs as `register` runs it, recording
 * finished calls in batches (`batchRecording`); `lanewatch-unbatched` is the class's default, each
 * call recorded as it ends. `lanewatch-metrics` is `lanewatch` with `spans: false` (the histograms
 * only). `sdk-floor` records, when each request ends, what
 * lanewatch records for a bench request, directly (see `SdkFloor`): the part of lanewatch's cost
 * that any instrumentation recording the same span and histograms would pay. `lanewatch-no-sdk` is
 * `lanewatch` with no SDK behind the OpenTelemetry API, whose no-op tracer and meter take the span
 * and the points: what following the request and reading its stream costs, before OpenTelemetry
 * records anything.
 */
export function instrument(mode: Exclude<Mode, 'none'>): void {
  if (mode === 'lanewatch-no-sdk') {
    // No SDK registered: the API's no-op tracer and meter take what lanewatch records.
    new LanewatchInstrumentation({ batchRecording: true });
    return;
  }
  const { tracerProvider, meterProvider } = startBenchSdk();
  if (mode === 'lanewatch') new LanewatchInstrumentation({ batchRecording: true });
  if (mode === 'lanewatch-unbatched') new LanewatchInstrumentation();
  if (mode === 'lanewatch-metrics') new LanewatchInstrumentation({ batchRecording: true, spans: false });
  if (mode === 'otel-undici') new UndiciInstrumentation();
  if (mode === 'sdk-floor') {
    const floor = new SdkFloor(
      tracerProvider.getTracer('bench-floor'),
      meterProvider.getMeter(INSTRUMENTATION_SCOPE, 'bench-floor'),
    );
    diagnosticsChannel.subscribe('undici:request:trailers', () => floor.record());
  }
}
