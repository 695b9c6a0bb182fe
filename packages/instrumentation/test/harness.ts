import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, DiagLogLevel, diag, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { lanewatchViews } from '../src/exponential-views.ts';
import { LanewatchInstrumentation, type LanewatchInstrumentationConfig } from '../src/instrumentation.ts';

/** One piece of a scripted response body, written `at` ms after the request arrived. */
export interface Piece {
  readonly at: number;
  readonly bytes: string | Uint8Array;
}

export interface Script {
  readonly status?: number;
  readonly headersAt?: number;
  readonly headers?: Record<string, string>;
  readonly pieces: readonly Piece[];
  /** Destroy the socket after the last piece instead of ending the body. */
  readonly reset?: boolean;
}

export interface ScriptedServer {
  readonly url: string;
  /** `performance.now()` at which each piece of the last request was written, in order. */
  readonly sent: number[];
  headersSentAt: number | undefined;
  requestBodies: number;
  close(): Promise<void>;
}

/** A local server that writes a scripted body piece by piece at scheduled times (same clock as the client). */
export async function startScriptedServer(script: (req: IncomingMessage) => Script): Promise<ScriptedServer> {
  const state: ScriptedServer = {
    url: '',
    sent: [],
    headersSentAt: undefined,
    requestBodies: 0,
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requestBodies++;
      const arrived = performance.now();
      const s = script(req);
      state.sent.length = 0;
      req.socket.setNoDelay(true);
      play(s, res, arrived, state);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  state.close = async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  };
  return Object.assign(state, { url: `http://127.0.0.1:${port}` });
}

function play(s: Script, res: ServerResponse, arrived: number, state: ScriptedServer): void {
  const at = (ms: number, fn: () => void) => {
    const wait = arrived + ms - performance.now();
    if (wait <= 0) fn();
    else setTimeout(fn, wait);
  };
  at(s.headersAt ?? 0, () => {
    res.writeHead(s.status ?? 200, { 'content-type': 'text/event-stream', ...s.headers });
    res.flushHeaders();
    state.headersSentAt = performance.now();
    let i = 0;
    const next = () => {
      const piece = s.pieces[i++];
      if (piece === undefined) {
        if (s.reset) res.socket?.destroy();
        else res.end();
        return;
      }
      at(piece.at, () => {
        if (res.destroyed) return;
        res.write(piece.bytes);
        state.sent.push(performance.now());
        next();
      });
    };
    next();
  });
}

export const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

export interface Harness {
  readonly instrumentation: LanewatchInstrumentation;
  readonly spans: InMemorySpanExporter;
  readonly tracerProvider: TracerProvider;
  finishedSpans(): ReadableSpan[];
  collect(): Promise<MetricData[]>;
  /** Everything the OTel diag logger printed. */
  readonly diagnostics: string[];
  reset(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Real SDK providers with in-memory exporters, exponential histograms, and an ALS context manager.
 * With `ownMeter`, the reader collects lanewatch's histograms through `metricProducer()`, as
 * `register` records them, instead of the SDK's meter recording them.
 */
export function startHarness(
  config: LanewatchInstrumentationConfig = {},
  { ownMeter = false }: { ownMeter?: boolean } = {},
): Harness {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const diagnostics: string[] = [];
  const log = (...args: unknown[]) => diagnostics.push(args.map(String).join(' '));
  diag.setLogger(
    { error: log, warn: log, info: log, debug: log, verbose: log },
    { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true },
  );

  const spans = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
  });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  const instrumentation = new LanewatchInstrumentation({ ...config, enabled: false });
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
    exportTimeoutMillis: 3_600_000,
    metricProducers: ownMeter ? [instrumentation.metricProducer(metricExporter)] : [],
  });
  const meterProvider = new MeterProvider({
    readers: [reader],
    views: lanewatchViews(),
  });
  instrumentation.setTracerProvider(tracerProvider);
  instrumentation.setMeterProvider(meterProvider);
  instrumentation.enable();

  return {
    instrumentation,
    spans,
    tracerProvider,
    diagnostics,
    finishedSpans: () => spans.getFinishedSpans(),
    collect: async () => {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    },
    reset: async () => {
      await reader.collect();
      spans.reset();
      diagnostics.length = 0;
    },
    shutdown: async () => {
      instrumentation.disable();
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
      diag.disable();
      contextManager.disable();
      context.disable();
      metrics.disable();
      trace.disable();
    },
  };
}

/** The data points of one metric, across every collection passed in. */
export function pointsOf(collected: MetricData[], name: string) {
  return collected
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as Array<{ attributes: Record<string, unknown>; value: unknown }>);
}

export { DataPointType };
