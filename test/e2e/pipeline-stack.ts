// The whole pipeline as local processes, every one on 127.0.0.1:
//   provider lanes (simulator, in this process) ← app (node --require …/register app.cjs)
//   app → OTLP/HTTP → collector (built from collector-config/, + a tap overlay) → Prometheus (remote write)
//                                                                              → lanewatch serve → Redis
//   lanewatch serve → its own metrics → collector;  collector → traces and a copy of the metrics → OTLP sink
// stop() ends everything it started, even after a failed start.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  type Collector,
  freePort,
  type OtlpSink,
  type Prometheus,
  startCollector,
  startOtlpSink,
  startPrometheus,
} from '../stack/index.ts';
import type { Canaries } from './canaries.ts';
import { type InstrumentedApp, startInstrumentedApp } from './instrumented-app.ts';
import { type LanewatchServe, type ServeOptions, startLanewatchServe } from './lanewatch-serve.ts';
import {
  closeProviderLanes,
  type LaneSpec,
  laneMapOf,
  type ProviderLane,
  startProviderLanes,
} from './provider-lanes.ts';

const tapOverlay = fileURLToPath(new URL('./collector-tap.yaml', import.meta.url));

export interface PipelineOptions {
  readonly canaries: Canaries;
  readonly lanes: readonly LaneSpec[];
  readonly timeScale: number;
  readonly serviceName: string;
  /** Redis port of the store (the shared 6379, or a private one). */
  readonly redisPort: number;
  readonly processor: Omit<ServeOptions, 'port' | 'store' | 'otlpEndpoint'>;
  /** Start the app with --expose-gc (its memory can then be measured without garbage). */
  readonly exposeGc?: boolean;
}

export interface PipelineStack {
  readonly lanes: readonly ProviderLane[];
  readonly sink: OtlpSink;
  readonly prometheus: Prometheus;
  readonly collector: Collector;
  readonly processor: LanewatchServe;
  readonly app: InstrumentedApp;
  /** The collector's OTLP/HTTP receiver: the app's and the processor's export endpoint. */
  readonly otlpHttpUrl: string;
  /** The store's key prefix, unique to this run. */
  readonly prefix: string;
  readonly store: string;
  lane(name: string): ProviderLane;
  /** Stops the collector; startCollectorAgain() brings one back on the same OTLP port. */
  stopCollector(): Promise<void>;
  startCollectorAgain(): Promise<void>;
  stopProcessor(): Promise<void>;
  startProcessorAgain(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPipeline(options: PipelineOptions): Promise<PipelineStack> {
  const prefix = `lanewatch-e2e-${randomBytes(4).toString('hex')}`;
  const store = `redis://127.0.0.1:${options.redisPort}?prefix=${prefix}`;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  try {
    const lanes = await startProviderLanes(options.lanes, {
      canaries: options.canaries,
      timeScale: options.timeScale,
    });
    stops.push(() => closeProviderLanes(lanes));
    const sink = await startOtlpSink();
    stops.push(() => sink.close());
    const prometheus = await startPrometheus();
    stops.push(() => prometheus.stop());

    // Fixed ports for the pieces a fault test restarts: the app keeps its endpoint, the collector its.
    const processorPort = await freePort();
    const otlpHttpPort = await freePort();
    const collectorOptions = {
      processorEndpoint: `http://127.0.0.1:${processorPort}`,
      remoteWriteUrl: prometheus.remoteWriteUrl,
      tracesEndpoint: sink.url,
      extraConfigs: [tapOverlay],
      env: {
        LANEWATCH_E2E_TAP_ENDPOINT: sink.url,
        LANEWATCH_OTLP_HTTP_ENDPOINT: `127.0.0.1:${otlpHttpPort}`,
      },
    };
    // startCollector reports the port it chose; the override above is the one the collector listens on.
    const otlpHttpUrl = `http://127.0.0.1:${otlpHttpPort}`;
    let collector = await startCollector(collectorOptions);
    stops.push(() => collector.stop());
    const serveOptions: ServeOptions = {
      ...options.processor,
      port: processorPort,
      store,
      otlpEndpoint: otlpHttpUrl,
    };
    let processor = await startLanewatchServe(serveOptions);
    stops.push(() => processor.stop());
    const app = await startInstrumentedApp({
      otlpEndpoint: otlpHttpUrl,
      laneMap: laneMapOf(lanes),
      serviceName: options.serviceName,
      exposeGc: options.exposeGc,
    });
    stops.push(() => app.stop());

    return {
      lanes,
      sink,
      prometheus,
      get collector() {
        return collector;
      },
      get processor() {
        return processor;
      },
      app,
      otlpHttpUrl,
      prefix,
      store,
      lane(name) {
        const lane = lanes.find((l) => l.spec.lane === name);
        if (lane === undefined) throw new Error(`no lane ${name}`);
        return lane;
      },
      stopCollector: () => collector.stop(),
      async startCollectorAgain() {
        collector = await startCollector(collectorOptions);
      },
      stopProcessor: () => processor.stop(),
      async startProcessorAgain() {
        processor = await startLanewatchServe(serveOptions);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Polls `probe` every 250 ms until it returns a value; fails after `timeoutMs` with `what`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await probe();
      if (result !== undefined) return result;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`${what}: not within ${timeoutMs} ms${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
