import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { viewOf } from '../evaluation/lane-health.ts';
import type { LaneFeed } from '../feed/lane-feed.ts';
import { type LaneStreamOptions, type LaneStreamStats, serveLaneStream } from '../feed/sse-stream.ts';
import type { MetricsHandler } from '../otlp/metrics-handler.ts';
import type { StoreStatus } from '../store/lane-health-store.ts';

export interface LaneServerOptions {
  readonly feed: LaneFeed;
  /** `POST /v1/metrics`: the OTLP/HTTP receiver (`createMetricsHandler` from `otlp/`); 404 when absent. */
  readonly ingest?: MetricsHandler | undefined;
  readonly storeStatus?: () => StoreStatus;
  readonly lastRoundAt?: () => number | undefined;
  readonly stream?: LaneStreamOptions;
  readonly now?: () => number;
}

export interface LaneServer {
  readonly server: Server;
  /** Stream connections open now, with what each holds. */
  streams(): LaneStreamStats[];
}

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/**
 * One node:http server for everything the processor serves:
 * - `GET /v1/lanes`              every lane's latest record, with `stale`
 * - `GET /v1/lanes/{lane}`       one lane (URL-encode a `/` in a provider/model lane name, or not)
 * - `GET /v1/lanes/stream`       the live SSE feed
 * - `GET /healthz`               liveness, store connection and the last evaluation
 * - `POST /v1/metrics`           OTLP/HTTP metrics, delegated to the ingest handler
 */
export function createLaneServer(options: LaneServerOptions): LaneServer {
  const now = options.now ?? Date.now;
  const streams = new Set<{ stats(): LaneStreamStats }>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/v1/metrics') {
      if (options.ingest) void options.ingest(req, res);
      else json(res, 404, { error: 'this processor has no OTLP ingest configured' });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, { error: `use GET for ${path}` }, { allow: 'GET, HEAD' });
      return;
    }
    if (path === '/healthz') {
      const store = options.storeStatus?.();
      const last = options.lastRoundAt?.();
      json(res, 200, {
        status: 'ok',
        lanes: options.feed.snapshot().length,
        last_evaluation_at: last === undefined ? null : new Date(last).toISOString(),
        store: store
          ? { kind: store.kind, connected: store.connected, last_error: store.lastError ?? null }
          : null,
        streams: streams.size,
      });
      return;
    }
    if (path === '/v1/lanes/stream') {
      const stream = serveLaneStream(req, res, options.feed, { ...options.stream, now });
      streams.add(stream);
      res.on('close', () => streams.delete(stream));
      return;
    }
    if (path === '/v1/lanes' || path === '/v1/lanes/') {
      json(res, 200, { lanes: options.feed.snapshot().map((r) => viewOf(r, now())) });
      return;
    }
    if (path.startsWith('/v1/lanes/')) {
      let lane: string;
      try {
        lane = decodeURIComponent(path.slice('/v1/lanes/'.length));
      } catch {
        json(res, 400, { error: 'the lane name is not valid percent-encoding' });
        return;
      }
      const record = options.feed.get(lane);
      if (record) json(res, 200, viewOf(record, now()));
      else json(res, 404, { error: `no lane named ${JSON.stringify(lane)}; GET /v1/lanes lists them` });
      return;
    }
    json(res, 404, { error: 'not found; try GET /v1/lanes, /v1/lanes/stream, /healthz or POST /v1/metrics' });
  };

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch {
      if (!res.headersSent) json(res, 500, { error: 'internal error' });
      else res.destroy();
    }
  });
  return { server, streams: () => [...streams].map((s) => s.stats()) };
}
