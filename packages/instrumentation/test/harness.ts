import assert from 'node:assert/strict';
import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import {
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
  constants as http2Constants,
} from 'node:http2';
import { type AddressInfo, connect as netConnect } from 'node:net';
import { type Coding, codePieces, LOCALHOST_TLS } from '@lanewatch/simulator';
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
  /**
   * After the last piece, break off instead of ending the body: HTTP/1.1 destroys the socket,
   * HTTP/2 resets the stream (RST_STREAM with INTERNAL_ERROR) and leaves the connection open.
   */
  readonly reset?: boolean;
  /** When to end (or reset) the body, in ms after the request arrived; default right after the last piece. */
  readonly endAt?: number;
}

/** What the server did for one request, on the client's clock. */
export interface ScriptedRequest {
  readonly protocol: string;
  readonly headers: AnyRequest['headers'];
  headersSentAt?: number;
  /** `performance.now()` at which each piece was written, in order. */
  readonly sent: number[];
}

export interface ScriptedServer {
  readonly url: string;
  /** `performance.now()` at which each piece of the last request was written, in order. */
  readonly sent: number[];
  headersSentAt: number | undefined;
  requestBodies: number;
  /** Every request's own record, in arrival order: for calls that overlap, where `sent` is the last one's. */
  readonly requests: ScriptedRequest[];
  /** The HTTP version of each request, in arrival order (`'1.1'`, `'2.0'`). */
  readonly protocols: readonly string[];
  /** Connections accepted (TLS sessions for `http2`). */
  connections: number;
  close(): Promise<void>;
}

/** The certificate of `startScriptedServer({ http2: true })` (the simulator's, for local tests only). */
export const TEST_CA = LOCALHOST_TLS.cert;

export interface ScriptedServerOptions {
  /**
   * Serve HTTPS with ALPN offering `h2` and `http/1.1`, as provider APIs do: clients that offer h2
   * get HTTP/2, the rest HTTP/1.1. The URL is `https://localhost:<port>`; trust `TEST_CA`.
   */
  readonly http2?: boolean;
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

/** A local server that writes a scripted body piece by piece at scheduled times (same clock as the client). */
export async function startScriptedServer(
  script: (req: AnyRequest) => Script,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const state: ScriptedServer = {
    url: '',
    sent: [],
    headersSentAt: undefined,
    requestBodies: 0,
    requests: [],
    get protocols() {
      return this.requests.map((r) => r.protocol);
    },
    connections: 0,
    close: async () => {},
  };
  const onRequest = (req: AnyRequest, res: AnyResponse) => {
    const own: ScriptedRequest = { protocol: req.httpVersion, headers: req.headers, sent: [] };
    state.requests.push(own);
    req.resume();
    req.on('end', () => {
      state.requestBodies++;
      const arrived = performance.now();
      const s = script(req);
      state.sent.length = 0;
      play(s, res, arrived, state, own);
    });
  };
  if (options.http2) {
    const sessions = new Set<Http2Session>();
    const server = createSecureServer({ key: LOCALHOST_TLS.key, cert: TEST_CA, allowHTTP1: true }, onRequest);
    server.on('secureConnection', (socket) => {
      state.connections++;
      socket.setNoDelay(true);
    });
    server.on('session', (session) => {
      sessions.add(session);
      session.on('close', () => sessions.delete(session));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    state.close = async () => {
      for (const session of sessions) session.destroy();
      server.close();
      await once(server, 'close');
    };
    return Object.assign(state, { url: `https://localhost:${port}` });
  }
  const server: Server = createServer(onRequest);
  server.on('connection', (socket) => {
    state.connections++;
    socket.setNoDelay(true);
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

/** What `play` does to a response, over either protocol. */
interface Reply {
  start(status: number, headers: Record<string, string>): void;
  write(bytes: string | Uint8Array): void;
  end(): void;
  reset(): void;
  gone(): boolean;
}

function replyOf(res: AnyResponse): Reply {
  if ('stream' in res) {
    return {
      start: (status, headers) => res.writeHead(status, headers), // HTTP/2 sends its HEADERS frame at once
      write: (bytes) => res.write(bytes),
      end: () => res.end(),
      reset: () => res.stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR),
      gone: () => res.stream.destroyed,
    };
  }
  return {
    start: (status, headers) => {
      res.writeHead(status, headers);
      res.flushHeaders();
    },
    write: (bytes) => res.write(bytes),
    end: () => res.end(),
    reset: () => res.socket?.destroy(),
    gone: () => res.destroyed,
  };
}

function play(
  s: Script,
  res: AnyResponse,
  arrived: number,
  state: ScriptedServer,
  own: ScriptedRequest,
): void {
  const reply = replyOf(res);
  const at = (ms: number, fn: () => void) => {
    const wait = arrived + ms - performance.now();
    if (wait <= 0) fn();
    else setTimeout(fn, wait);
  };
  at(s.headersAt ?? 0, () => {
    reply.start(s.status ?? 200, { 'content-type': 'text/event-stream', ...s.headers });
    state.headersSentAt = performance.now();
    own.headersSentAt = state.headersSentAt;
    let i = 0;
    const next = () => {
      const piece = s.pieces[i++];
      if (piece === undefined) {
        at(s.endAt ?? 0, () => {
          if (reply.gone()) return;
          if (s.reset) reply.reset();
          else reply.end();
        });
        return;
      }
      at(piece.at, () => {
        if (reply.gone()) return;
        reply.write(piece.bytes);
        state.sent.push(performance.now());
        own.sent.push(state.sent.at(-1) as number);
        next();
      });
    };
    next();
  });
}

/**
 * A forward HTTP proxy, as a company's egress is: absolute-form requests forwarded (http:// targets),
 * CONNECT tunnels (https://). `seen` lists what it was asked for.
 */
export async function startForwardProxy(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: req.headers,
      },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.once('error', () => res.destroy());
    req.pipe(upstream);
  });
  proxy.on('connect', (req: IncomingMessage, socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = netConnect(Number(port), host ?? '', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.once('error', () => socket.destroy());
    socket.once('error', () => upstream.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: async () => {
      proxy.closeAllConnections();
      proxy.close();
      await once(proxy, 'close');
    },
  };
}

/** A `Content-Encoding` a test server can send; `deflate-raw` is `deflate` without its zlib wrapper, as some servers send it. */
export type TestCoding = Coding;

/** The `Content-Encoding` header value of a test coding. */
export const codingHeader = (coding: TestCoding) => (coding === 'deflate-raw' ? 'deflate' : coding);

/**
 * The same body coded as `coding`, as a server that compresses a stream sends it (the simulator's
 * `codePieces`: one compressor, flushed after each piece); the coding's end is in the last piece.
 */
export async function codedPieces(pieces: readonly Piece[], coding: TestCoding): Promise<Piece[]> {
  const coded = await codePieces(
    pieces.map((p) => p.bytes),
    coding,
  );
  return pieces.map((piece, i) => ({
    at: piece.at,
    bytes:
      i === pieces.length - 1
        ? Buffer.concat([coded.pieces[i] as Uint8Array, coded.tail])
        : (coded.pieces[i] as Uint8Array),
  }));
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
 * Everything the harness's exporters and diag logger hold — each span's name, attributes, events and
 * status, the collected metrics, the diagnostics — as one string, for canary checks.
 */
export async function exportedText(h: Harness): Promise<string> {
  return JSON.stringify({
    spans: h.finishedSpans().map((s) => ({ n: s.name, a: s.attributes, e: s.events, st: s.status })),
    metrics: await h.collect(),
    logs: h.diagnostics,
  });
}

/**
 * Asserts that one milestone was recorded within 2 ms of the server's send, from its error
 * (observed − sent, in ms) in each of several calls. A loaded machine only ever adds delay, to some
 * calls or to all of a stretch, so what lanewatch adds shows in the calls the machine did not delay:
 * the lower quartile must be within 2 ms, the median within 4, all but the worst within 25 ms.
 *
 * A slow machine delays every call, headers too (CI once had the headers' own errors at a median of
 * 2.2 ms, the machine's delivery and undici's parsing, before lanewatch does anything). So the
 * milestones read from the body are judged against `headers`, the same calls' headers errors, taken
 * on the same socket through the same parser: what the body's reading adds. A stamp lanewatch took
 * late — at the application's read, say — moves every call. Returns the figures, for `t.diagnostic`.
 */
export function assertRecordedWithin(
  name: string,
  errors: readonly number[],
  headers?: readonly number[],
): string {
  const judged = headers === undefined ? errors : errors.map((e, i) => e - (headers[i] ?? 0));
  const sorted = [...judged].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.floor((sorted.length - 1) * q)] as number;
  const what = headers === undefined ? 'after the send' : 'after the send, beyond the headers’ own delay';
  const all = `all: ${sorted.map((e) => e.toFixed(1)).join(', ')}`;
  assert.ok(at(0.25) <= 2, `${name}: lower quartile ${at(0.25).toFixed(2)} ms ${what} (${all})`);
  assert.ok(at(0.5) <= 4, `${name}: median ${at(0.5).toFixed(2)} ms ${what} (${all})`);
  const absolute = [...errors].sort((a, b) => a - b);
  assert.ok(
    (absolute.at(-2) ?? 0) <= 25,
    `${name}: all but the worst within 25 ms of the send (${absolute})`,
  );
  return `${name}: lower quartile ${at(0.25).toFixed(2)} ms, median ${at(0.5).toFixed(2)} ms ${what}; worst ${absolute.at(-1)?.toFixed(1)} ms after the send`;
}

/**
 * `assertRecordedWithin` for every milestone of the same calls (`errors` by milestone, one per call,
 * `headers` among them): the headers from the send, the rest beyond the headers' own delay.
 * Returns one line per milestone, for `t.diagnostic`.
 */
export function assertMilestonesRecordedWithin(
  errors: Readonly<Record<string, readonly number[]>>,
): string[] {
  return Object.entries(errors).map(([name, list]) =>
    assertRecordedWithin(name, list, name === 'headers' ? undefined : errors.headers),
  );
}

/** Polls `condition` every 5 ms; throws after `ms`. */
export async function waitFor(condition: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
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
