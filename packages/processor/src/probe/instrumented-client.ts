import {
  ATTR,
  type LaneMapInput,
  LanewatchInstrumentation,
  lanewatchViews,
  MILESTONE_SPAN_MS,
  MILESTONES,
  type Milestone,
  type Outcome,
  SPAN_ATTR,
  withAttempt,
} from '@lanewatch/instrumentation';
import { type Context, context, createContextKey } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { type ReadableSpan, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** One call as the instrumentation measured it (from its span: numbers and classes only, no content). */
export interface MeasuredCall {
  readonly lane: string;
  readonly outcome: Outcome;
  /** `rate_limited`, `http_5xx`, `connection_refused`, `stream_error:…`; absent unless `outcome` is `error`. */
  readonly errorType: string | undefined;
  readonly statusCode: number | undefined;
  /** Milliseconds from dispatch (t1) to each milestone reached; a milestone missed is absent. */
  readonly milestonesMs: Partial<Record<Milestone, number>>;
  readonly diagnosis: string | undefined;
  readonly outputTokensPerSecond: number | undefined;
}

export interface InstrumentedClientOptions {
  /** Lane names by URL prefix, as `LanewatchInstrumentation`'s `lanes`. */
  readonly lanes?: LaneMapInput;
  /** Export lanewatch's metrics (OTLP/HTTP JSON, cumulative, exponential) to this base or `/v1/metrics` URL. */
  readonly otlpEndpoint?: string | undefined;
  readonly exportIntervalMs?: number;
  /** Every measured call, including those not started through `call()`. */
  readonly onCall?: (call: MeasuredCall) => void;
}

export interface InstrumentedClient {
  /**
   * Runs `send` (which makes one fetch) as attempt `attempt`; `measured` resolves with that fetch's
   * measurements once its body has ended, or `undefined` when the instrumentation saw no call.
   */
  call<T>(
    send: () => Promise<T>,
    attempt?: number,
  ): { result: Promise<T>; measured: Promise<MeasuredCall | undefined> };
  /** Export rounds that failed (connection refused, 4xx/5xx from the receiver, timeout). */
  readonly exportFailures: number;
  /** Stops measuring; with an endpoint, exports what is pending first (a failure is counted). */
  shutdown(): Promise<void>;
}

const CALL_KEY = createContextKey('lanewatch.cli.call');

/** `http://host:4320` → `http://host:4320/v1/metrics`; a URL already ending in `/v1/metrics` is kept. */
export function metricsUrlOf(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/metrics')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/metrics`;
  return url.toString();
}

function measuredOf(span: ReadableSpan): MeasuredCall {
  const a = span.attributes;
  const milestonesMs: Partial<Record<Milestone, number>> = {};
  for (const milestone of MILESTONES) {
    const value = a[MILESTONE_SPAN_MS[milestone]];
    if (typeof value === 'number') milestonesMs[milestone] = value;
  }
  const text = (key: string) => (typeof a[key] === 'string' ? (a[key] as string) : undefined);
  const tokens = a[SPAN_ATTR.outputTokensPerSecond];
  const status = a[ATTR.statusCode];
  return {
    lane: text(ATTR.lane) ?? 'unknown',
    outcome: (text(ATTR.outcome) ?? 'error') as Outcome,
    errorType: text(ATTR.errorType),
    statusCode: typeof status === 'number' ? status : undefined,
    milestonesMs,
    diagnosis: text(SPAN_ATTR.diagnosis),
    outputTokensPerSecond: typeof tokens === 'number' ? tokens : undefined,
  };
}

/**
 * lanewatch's instrumentation in this process, as an application would run it: a real tracer provider
 * (its spans give each call's milestones back to the caller) and, with an endpoint, a real meter
 * provider exporting exponential histograms over OTLP/HTTP. One per process: the instrumentation
 * allows a single active instance.
 */
export function startInstrumentedClient(options: InstrumentedClientOptions = {}): InstrumentedClient {
  // Spans are matched to their call through the context the call was started in.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const waiting = new Map<number, (call: MeasuredCall) => void>();
  const callOfSpan = new WeakMap<object, number>();
  let nextCall = 1;
  const collector: SpanProcessor = {
    onStart(span, parent: Context) {
      const id = parent.getValue(CALL_KEY);
      if (typeof id === 'number') callOfSpan.set(span, id);
    },
    onEnd(span) {
      const call = measuredOf(span);
      options.onCall?.(call);
      const id = callOfSpan.get(span);
      if (id === undefined) return;
      waiting.get(id)?.(call);
      waiting.delete(id);
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const tracerProvider = new TracerProvider({ spanProcessors: [collector] });

  let exportFailures = 0;
  let meterProvider: MeterProvider | undefined;
  if (options.otlpEndpoint !== undefined) {
    const interval = options.exportIntervalMs ?? 5000;
    // The exporter retries a refused export until its own timeout, and the probe's end waits for the
    // export in flight and then its last one: 2 s each at most, not OTEL_EXPORTER_OTLP_TIMEOUT's 10 s
    // (with the endpoint down, a 3-sample probe took 27 s to end). A probe exports to a collector or
    // `lanewatch serve` nearby; a failed round is counted and reported, and sets the exit code.
    const exportTimeout = Math.min(interval, 2_000);
    const inner = new OTLPMetricExporter({
      url: metricsUrlOf(options.otlpEndpoint),
      timeoutMillis: exportTimeout,
    });
    // Counts failed rounds; the exporter's own errors stay inside it (they carry no content, but a URL).
    const exporter: PushMetricExporter = {
      export(metrics, done) {
        inner.export(metrics, (result) => {
          if (result.code !== 0) exportFailures++;
          done(result);
        });
      },
      forceFlush: () => inner.forceFlush(),
      shutdown: () => inner.shutdown(),
      selectAggregationTemporality: inner.selectAggregationTemporality?.bind(inner),
      selectAggregation: inner.selectAggregation?.bind(inner),
    };
    meterProvider = new MeterProvider({
      views: lanewatchViews(),
      readers: [
        new PeriodicExportingMetricReader({
          exporter,
          exportIntervalMillis: interval,
          exportTimeoutMillis: exportTimeout,
        }),
      ],
    });
  }

  const instrumentation = new LanewatchInstrumentation({
    enabled: false,
    ...(options.lanes === undefined ? {} : { lanes: options.lanes }),
  });
  instrumentation.setTracerProvider(tracerProvider);
  if (meterProvider) instrumentation.setMeterProvider(meterProvider);
  instrumentation.enable();

  return {
    call<T>(send: () => Promise<T>, attempt = 1) {
      const id = nextCall++;
      let resolveMeasured: (call: MeasuredCall | undefined) => void = () => {};
      const measured = new Promise<MeasuredCall | undefined>((resolve) => {
        resolveMeasured = resolve;
      });
      waiting.set(id, resolveMeasured);
      const result = context.with(context.active().setValue(CALL_KEY, id), () => withAttempt(attempt, send));
      // A call the instrumentation never saw (refused before dispatch) has no span: give up after a while.
      const settle = () => {
        setTimeout(() => {
          if (waiting.delete(id)) resolveMeasured(undefined);
        }, 2000);
      };
      result.then(settle, settle);
      return { result, measured };
    },
    get exportFailures() {
      return exportFailures;
    },
    async shutdown() {
      instrumentation.disable();
      await meterProvider?.shutdown().catch(() => {
        exportFailures++;
      });
      await tracerProvider.shutdown().catch(() => {});
      context.disable();
    },
  };
}
