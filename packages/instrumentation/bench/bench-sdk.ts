// The OpenTelemetry pipeline every instrumented benchmark process runs: the SDK's tracer and meter
// providers at their defaults (batch span processor; metric export at the default 60 s interval,
// as applications run it), lanewatch's exponential-histogram views, and exporters that drop what
// they get — the span exporter after reading each span as an exporter does — so a measurement is
// the instrumentation's own cost, not a network's.
import diagnosticsChannel from 'node:diagnostics_channel';
import {
  INSTRUMENTATION_SCOPE,
  LanewatchInstrumentation,
  type LanewatchInstrumentationConfig,
  lanewatchViews,
} from '@lanewatch/instrumentation';
import {
  type Attributes,
  type ContextManager,
  context,
  createNoopMeter,
  type Meter,
  metrics,
  ProxyTracerProvider,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { OwnMeter } from '../src/own-meter.ts';
import { OwnTracer, sdkSpanIdentity } from '../src/own-tracer.ts';
import { VERSION } from '../src/version.ts';
import { SdkFloor } from './sdk-floor.ts';

/** What the span exporter read: kept, so that reading it is not optimized away. */
export let read = 0;

export const MODES = [
  'none',
  'lanewatch',
  'lanewatch-unbatched',
  'lanewatch-sdk-spans',
  'lanewatch-metrics',
  'lanewatch-no-sdk',
  'otel-undici',
  'sdk-floor',
] as const;
export type Mode = (typeof MODES)[number];

export interface BenchSdk {
  readonly tracerProvider: TracerProvider;
  readonly meterProvider: MeterProvider;
  /** Makes `instrumentation` record its histograms as `register` does: into its own meter (see `OwnMeter`). */
  useOwnMeter(instrumentation: LanewatchInstrumentation): void;
  /** Makes `instrumentation` make its spans as `register` does: by itself, into the SDK's span processor (see `OwnTracer`). */
  useOwnTracer(instrumentation: LanewatchInstrumentation): void;
  /** That tracer. */
  readonly ownTracer: OwnTracer;
  /** That meter, and what a point with each attribute set is recorded with in it. */
  readonly ownMeter: Meter;
  readonly ownPointAttributes: (attributes: Attributes) => Attributes;
}

/**
 * Registers the global SDK pipeline; the same for every instrumented mode. Its metric reader also
 * collects lanewatch's own meter, as the readers `register` makes do.
 */
export function startBenchSdk(
  contextManager: ContextManager = new AsyncLocalStorageContextManager(),
): BenchSdk {
  // The span exporter reads each span's attributes, events and times, as every exporter does before
  // it serializes them — lanewatch's spans build them when first read (see `OwnSpan`) — then drops it.
  const dropSpans: SpanExporter = {
    export: (spans, done) => {
      for (const span of spans) {
        read += Object.keys(span.attributes).length + span.events.length;
        read += span.startTime.length + span.endTime.length + span.duration.length;
      }
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const dropMetrics: PushMetricExporter = {
    export: (_m, done) => done({ code: 0 }),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  context.setGlobalContextManager(contextManager.enable());
  const spanProcessor = new BatchSpanProcessor({ exporter: dropSpans });
  const tracerProvider = new TracerProvider({ spanProcessors: [spanProcessor] });
  const flushes: Array<() => void> = [];
  const own = new OwnMeter(() => {
    for (const flush of flushes) flush();
  });
  const reader: PeriodicExportingMetricReader = new PeriodicExportingMetricReader({
    exporter: dropMetrics,
    exportIntervalMillis: 60_000,
    metricProducers: [own.producerFor(() => reader)],
  });
  const meterProvider = new MeterProvider({ views: lanewatchViews(), readers: [reader] });
  const ownMeter = own.meter(lanewatchViews());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  const identity = sdkSpanIdentity(tracerProvider.getTracer(INSTRUMENTATION_SCOPE, VERSION));
  if (identity === undefined) throw new Error('bench: the SDK tracer made no recording span');
  const sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() });
  const ownTracer = new OwnTracer({ spanProcessor, sampler, ...identity });
  return {
    ownTracer,
    tracerProvider,
    meterProvider,
    ownMeter,
    ownPointAttributes: (attributes) => own.sets.standIn(attributes),
    useOwnMeter(instrumentation) {
      flushes.push(() => instrumentation.flush());
      instrumentation.useOwnMeter(ownMeter, own.sets);
    },
    useOwnTracer(instrumentation) {
      instrumentation.useOwnTracer(ownTracer);
    },
  };
}

/**
 * Starts the SDK and the mode's instrumentation, for a process of its own. `lanewatch` runs as
 * `register` runs it, recording finished calls in batches (`batchRecording`) into its own meter
 * (`OwnMeter`), its spans made by its own tracer (`OwnTracer`); `lanewatch-sdk-spans` is the same
 * with its spans through the SDK's tracer (what the class does inside an SDK of your own, with
 * `metricProducer` and `batchRecording`); `lanewatch-unbatched` is the class's default, each call
 * recorded as it ends into the SDK's tracer and meter. `lanewatch-metrics` is `lanewatch` with
 * `spans: false` (the histograms only). `sdk-floor` records, when each request ends, what lanewatch
 * records for a bench request, directly (see `SdkFloor`): the part of lanewatch's cost that any
 * instrumentation recording the same span and histograms would pay. `lanewatch-no-sdk` is
 * `lanewatch` with no SDK behind it — the OpenTelemetry API's no-op tracer and meter take the span
 * and the points: what following the request and reading its stream costs, before OpenTelemetry
 * records anything. The same set-up as the interleaved benchmark's (`modeToggles`), switched on.
 */
export function instrument(mode: Exclude<Mode, 'none'>): void {
  modeToggles([mode])[mode].on();
}

/** Starts and stops one mode inside a process that hosts several. */
export interface Toggle {
  on(): void;
  off(): void;
}

/**
 * Every mode of `modes` set up in this one process, each off until `on()`: for the benchmark that
 * interleaves modes in one process, and (one mode, switched on) for a process of its own. The modes
 * that run the SDK turn its context manager on with them, and off after, so `none` and
 * `lanewatch-no-sdk` run without one. All share one SDK pipeline.
 */
export function modeToggles(modes: readonly Mode[]): Record<Mode, Toggle> {
  const contextManager = new AsyncLocalStorageContextManager();
  const sdk = startBenchSdk(contextManager);
  const { tracerProvider, meterProvider } = sdk;
  context.disable();
  const withSdk = (start: () => void, stop: () => void): Toggle => ({
    on() {
      context.setGlobalContextManager(contextManager.enable());
      start();
    },
    off() {
      stop();
      context.disable();
    },
  });
  const lanewatch = (config: LanewatchInstrumentationConfig, asRegister = true, ownSpans = asRegister) => {
    const instrumentation = new LanewatchInstrumentation({ ...config, enabled: false });
    if (asRegister) sdk.useOwnMeter(instrumentation);
    if (ownSpans) sdk.useOwnTracer(instrumentation);
    return withSdk(
      () => instrumentation.enable(),
      () => instrumentation.disable(),
    );
  };
  const toggles: Partial<Record<Mode, Toggle>> = {};
  for (const mode of modes) {
    if (mode === 'none') toggles[mode] = { on() {}, off() {} };
    if (mode === 'lanewatch') toggles[mode] = lanewatch({ batchRecording: true });
    if (mode === 'lanewatch-unbatched') toggles[mode] = lanewatch({}, false);
    if (mode === 'lanewatch-sdk-spans') toggles[mode] = lanewatch({ batchRecording: true }, true, false);
    if (mode === 'lanewatch-metrics') toggles[mode] = lanewatch({ batchRecording: true, spans: false });
    if (mode === 'lanewatch-no-sdk') {
      // The API's no-op tracer (a proxy with no SDK behind it) and no-op meter, as with no SDK at all.
      const instrumentation = new LanewatchInstrumentation({ batchRecording: true, enabled: false });
      instrumentation.setTracerProvider(new ProxyTracerProvider());
      instrumentation.setMeterProvider({ getMeter: () => createNoopMeter() });
      toggles[mode] = { on: () => instrumentation.enable(), off: () => instrumentation.disable() };
    }
    if (mode === 'otel-undici') {
      // Made enabled (made disabled, it would never record), then off until its turn.
      const instrumentation = new UndiciInstrumentation();
      instrumentation.disable();
      toggles[mode] = withSdk(
        () => instrumentation.enable(),
        () => instrumentation.disable(),
      );
    }
    if (mode === 'sdk-floor') {
      const floor = new SdkFloor(
        tracerProvider.getTracer('bench-floor'),
        meterProvider.getMeter(INSTRUMENTATION_SCOPE, 'bench-floor'),
      );
      const record = () => floor.record();
      toggles[mode] = withSdk(
        () => diagnosticsChannel.subscribe('undici:request:trailers', record),
        () => diagnosticsChannel.unsubscribe('undici:request:trailers', record),
      );
    }
  }
  return toggles as Record<Mode, Toggle>;
}
