import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Meter } from '@opentelemetry/api';
import { DEFAULT_EVALUATION_CONFIG, type LaneEvaluationConfig } from '../evaluation/evaluation-config.ts';
import { isStale } from '../evaluation/lane-health.ts';
import { createLaneFeed, type LaneFeed } from '../feed/lane-feed.ts';
import { EMPTY_LANES_FILE, type LanesFile } from '../lanes-file/lanes-file.ts';
import { createGrpcReceiver, type GrpcReceiver } from '../otlp/grpc-receiver.ts';
import {
  createMetricsHandler,
  type MetricsHandler,
  type MetricsHandlerOptions,
} from '../otlp/metrics-handler.ts';
import { errorClass, type LaneHealthStore } from '../store/lane-health-store.ts';
import { defaultInstance, type MetricsExportOptions } from '../telemetry/metrics-export.ts';
import { createProcessorTelemetry, type ProcessorTelemetry } from '../telemetry/processor-telemetry.ts';
import { createEvaluationLoop, type EvaluationLoop } from './evaluation-loop.ts';
import { createLaneServer, type LaneServer } from './lane-server.ts';
import type { LaneWindows } from './observation-source.ts';

export interface ProcessorOptions {
  readonly port: number;
  readonly host: string;
  /**
   * Also receive OTLP/gRPC (MetricsService/Export) on this port (0: any free port), at `host`; needs
   * `windows`. Absent: no gRPC listener.
   */
  readonly grpcPort?: number | undefined;
  readonly store: LaneHealthStore;
  readonly lanes?: LanesFile;
  /** Ingest → sliding windows (aggregation). Without it the server has no `POST /v1/metrics`. */
  readonly windows?: LaneWindows | undefined;
  readonly intervalS: number;
  readonly windowS: number;
  readonly config?: LaneEvaluationConfig;
  readonly bearerToken?: string | undefined;
  readonly maxBodyBytes?: number | undefined;
  readonly now?: () => number;
  /** One line per notable event (start, store failures, shutdown); never record contents. */
  readonly log?: (line: string) => void;
  /**
   * Export the processor's own metrics (telemetry/instrument-names.ts) over OTLP/HTTP; every
   * `intervalS` unless it says otherwise. Absent: nothing is exported.
   */
  readonly metricsExport?: MetricsExportOptions | undefined;
}

export interface RunningProcessor {
  readonly url: string;
  readonly port: number;
  /** The OTLP/gRPC port, when `grpcPort` was given. */
  readonly grpcPort: number | undefined;
  /** `host:port` of the OTLP/gRPC receiver (`[::1]:4317` for an IPv6 host), when `grpcPort` was given. */
  readonly grpcEndpoint: string | undefined;
  readonly feed: LaneFeed;
  readonly loop: EvaluationLoop;
  readonly http: LaneServer;
  /**
   * The meter the processor's own metrics are exported through (a no-op one without `metricsExport`):
   * pass it to `createAdmissionController` to count decisions made in this process into the same export.
   */
  readonly meter: Meter;
  /** Graceful shutdown: stop the timer, evaluate once more and write the last records, close. */
  close(): Promise<void>;
}

/**
 * The OTLP/gRPC listener could not listen. It carries the system error's `code`, `syscall` and
 * `address`, so it reads like a failure of the HTTP port, and says which listener it was.
 */
export class GrpcListenError extends Error {
  override readonly name = 'GrpcListenError';
  readonly code: unknown;
  readonly syscall: unknown;
  readonly address: unknown;
  constructor(cause: unknown) {
    super(`OTLP/gRPC listener: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    const { code, syscall, address } = (cause ?? {}) as {
      code?: unknown;
      syscall?: unknown;
      address?: unknown;
    };
    this.code = code;
    this.syscall = syscall;
    this.address = address;
  }
}

/**
 * The running processor: OTLP ingest → windows → evaluation every `intervalS` → store + feed, all on
 * one HTTP server, and OTLP/gRPC ingest on a port of its own with `grpcPort`. The store is opened
 * by the caller (it is also what a restart resumes from).
 */
export async function startProcessor(options: ProcessorOptions): Promise<RunningProcessor> {
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);
  const { store } = options;
  if (options.grpcPort !== undefined && options.windows === undefined) {
    throw new Error('grpcPort needs windows: OTLP/gRPC is an ingest');
  }
  const feed = createLaneFeed(await store.readAll());
  const windows = options.windows;
  const loop = await createEvaluationLoop({
    source: windows ?? { observe: () => [] },
    lanes: options.lanes ?? EMPTY_LANES_FILE,
    config: options.config ?? DEFAULT_EVALUATION_CONFIG,
    store,
    feed,
    intervalS: options.intervalS,
    windowS: options.windowS,
    now,
    onError: (error) => log(`evaluation round failed: ${(error as Error).name}`),
  });
  // Made once the port is known (it names the instance); no request is read before that.
  let telemetry: ProcessorTelemetry | undefined;
  // One set of ingest options for both transports: same windows, token, limits and counters.
  const ingestOptions: MetricsHandlerOptions | undefined = windows && {
    ingest: (batch) => windows.ingest(batch),
    ...(windows.accepts ? { accepts: windows.accepts } : {}),
    bearerToken: options.bearerToken,
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    onError: (error) => log(`ingest failed: ${(error as Error).name}`),
    onPoints: (accepted, rejected) => telemetry?.ingest.points(accepted, rejected),
  };
  const handler = ingestOptions ? createMetricsHandler(ingestOptions) : undefined;
  const ingest: MetricsHandler | undefined = handler
    ? (req, res) => {
        res.once('finish', () => telemetry?.ingest.request(res.statusCode));
        return handler(req, res);
      }
    : undefined;
  const http = createLaneServer({
    feed,
    ingest,
    storeStatus: () => store.status(),
    lastRoundAt: () => loop.lastRoundAt,
    now,
  });
  // gRPC listens first: once /healthz answers, both receivers take points.
  let grpc: GrpcReceiver | undefined;
  let grpcPort: number | undefined;
  if (options.grpcPort !== undefined) {
    grpc = createGrpcReceiver(ingestOptions as MetricsHandlerOptions);
    try {
      grpcPort = await grpc.listen(options.grpcPort, options.host);
    } catch (error) {
      await grpc.close(0);
      throw new GrpcListenError(error);
    }
  }
  http.server.listen(options.port, options.host);
  try {
    await once(http.server, 'listening');
  } catch (error) {
    await grpc?.close(0);
    throw error;
  }
  const port = (http.server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let lastExportError: string | undefined;
  try {
    telemetry = createProcessorTelemetry({
      export: options.metricsExport && {
        ...options.metricsExport,
        intervalMs: options.metricsExport.intervalMs ?? options.intervalS * 1000,
        instance: defaultInstance(port),
      },
      records: () => feed.snapshot().filter((record) => !isStale(record, now())),
      onError: (error) => {
        // One line per change of failure, not one per export.
        const kind = errorClass(error);
        if (kind !== lastExportError) log(`metrics export failed: ${kind}`);
        lastExportError = kind;
      },
    });
  } catch (error) {
    // A bad metricsExport (e.g. an interval of 0) fails the start without leaving the port open.
    http.server.close();
    await grpc?.close(0);
    throw error;
  }
  loop.start();
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    grpcPort,
    grpcEndpoint: grpcPort === undefined ? undefined : `${host}:${grpcPort}`,
    feed,
    loop,
    http,
    meter: telemetry.meter,
    close() {
      closing ??= (async () => {
        // Points of gRPC calls in flight still make the last round.
        await grpc?.close();
        await loop.stop();
        await loop.evaluateNow().catch(() => undefined);
        await telemetry?.shutdown();
        http.server.close();
        http.server.closeAllConnections();
        await store.close();
      })();
      return closing;
    },
  };
}
