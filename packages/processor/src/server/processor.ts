import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { DEFAULT_EVALUATION_CONFIG, type LaneEvaluationConfig } from '../evaluation/evaluation-config.ts';
import { createLaneFeed, type LaneFeed } from '../feed/lane-feed.ts';
import { EMPTY_LANES_FILE, type LanesFile } from '../lanes-file/lanes-file.ts';
import { createMetricsHandler } from '../otlp/metrics-handler.ts';
import type { LaneHealthStore } from '../store/lane-health-store.ts';
import { createEvaluationLoop, type EvaluationLoop } from './evaluation-loop.ts';
import { createLaneServer, type LaneServer } from './lane-server.ts';
import type { LaneWindows } from './observation-source.ts';

export interface ProcessorOptions {
  readonly port: number;
  readonly host: string;
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
}

export interface RunningProcessor {
  readonly url: string;
  readonly port: number;
  readonly feed: LaneFeed;
  readonly loop: EvaluationLoop;
  readonly http: LaneServer;
  /** Graceful shutdown: stop the timer, evaluate once more and write the last records, close. */
  close(): Promise<void>;
}

/**
 * The running processor: OTLP ingest → windows → evaluation every `intervalS` → store + feed, all on
 * one HTTP server. The store is opened by the caller (it is also what a restart resumes from).
 */
export async function startProcessor(options: ProcessorOptions): Promise<RunningProcessor> {
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);
  const { store } = options;
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
  const ingest = windows
    ? createMetricsHandler({
        ingest: (batch) => windows.ingest(batch),
        ...(windows.accepts ? { accepts: windows.accepts } : {}),
        bearerToken: options.bearerToken,
        ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
        onError: (error) => log(`ingest failed: ${(error as Error).name}`),
      })
    : undefined;
  const http = createLaneServer({
    feed,
    ingest,
    storeStatus: () => store.status(),
    lastRoundAt: () => loop.lastRoundAt,
    now,
  });
  http.server.listen(options.port, options.host);
  await once(http.server, 'listening');
  const port = (http.server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  loop.start();
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    feed,
    loop,
    http,
    close() {
      closing ??= (async () => {
        await loop.stop();
        await loop.evaluateNow().catch(() => undefined);
        http.server.close();
        http.server.closeAllConnections();
        await store.close();
      })();
      return closing;
    },
  };
}
