import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
  constants as http2Constants,
} from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import {
  type CodedPieces,
  codePieces,
  codeWhole,
  negotiateCoding,
  type StreamCoding,
} from './content-coding.ts';
import { type DueTimer, runAt } from './due-timer.ts';
import { routeOf } from './provider-route.ts';
import { requestFields } from './request-fields.ts';
import { type PieceKind, type Script, scheduleOf, validateScript } from './script.ts';
import { type WholeReply, wholeReply } from './whole-reply.ts';
import {
  type HttpReply,
  type WireFormat,
  type WirePiece,
  type WireWriter,
  type WriteContext,
  wirePieceBytes,
} from './wire-format.ts';
import { defaultWriters } from './writers.ts';

/** What `respond` learns about a request. The prompt itself is read and discarded, never kept. */
export interface ProviderRequest {
  /** Order of arrival on this server, from 0. */
  readonly index: number;
  readonly format: WireFormat;
  /** Ollama: `/api/chat` or `/api/generate`. */
  readonly endpoint?: 'chat' | 'generate';
  /** Path without the query string (which may hold an API key). */
  readonly path: string;
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly headers: IncomingHttpHeaders;
  readonly bodyBytes: number;
  /** `performance.now()` when the request's headers arrived: the origin of every delay in its script. */
  readonly arrivedAt: number;
}

export type Respond = (request: ProviderRequest) => Script | Promise<Script>;

export interface ProviderServerOptions {
  readonly respond: Respond;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** Default 0: any free port. */
  readonly port?: number;
  /** Replace the writer of a format, e.g. `{ 'openai-chat': openaiChatWriter(OPENROUTER_DIALECT) }`. */
  readonly writers?: Partial<Record<WireFormat, WireWriter>>;
  /** See `runAt`: spin the last `spinMs` before each due time for microsecond accuracy. Default 0. */
  readonly spinMs?: number;
  /**
   * Serve HTTPS with this key and certificate, offering `h2` and `http/1.1` by ALPN as provider APIs
   * do: a client that offers h2 (Node 26's fetch, the undici 8 package) gets HTTP/2, others HTTP/1.1.
   * `LOCALHOST_TLS` is one for local tests. Over HTTP/2 a `reset` resets the call's stream
   * (RST_STREAM, INTERNAL_ERROR), as a provider's proxy does, and leaves the connection to others.
   */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
  /**
   * Compress streams as a gateway (or a provider's edge) does when the request accepts it: the first
   * of `br`, `gzip` and `deflate` its `Accept-Encoding` allows, one compressor for the body, flushed
   * after each piece so that each can be decoded when it arrives. A non-streaming answer is
   * compressed whole; error replies stay as they are.
   */
  readonly compress?: boolean;
}

/**
 * One piece as the server played it. `bytes` is the piece's own size, before any compression (see
 * `compress`): 0 where the format has no event for the piece.
 */
export interface SentPiece {
  readonly index: number;
  readonly kind: PieceKind;
  /** `performance.now()` at which the piece was due, and at which it was handed to the socket. */
  readonly scheduledAt: number;
  readonly sentAt: number;
  readonly bytes: number;
}

/**
 * How a response ended on the server: `complete` (every piece written, body ended — with or without
 * the format's terminal event), `error-reply`, `reset`, `hang` and `no-answer` as scripted,
 * `client-closed` when the client went away first, `server-closed` when `close()` cut it.
 */
export type Ending =
  | 'complete'
  | 'error-reply'
  | 'reset'
  | 'hang'
  | 'no-answer'
  | 'client-closed'
  | 'server-closed';

/** Everything the server did for one request, on the same clock as the client's `performance.now()`. */
export interface RequestRecord {
  readonly request: ProviderRequest;
  /** The request's HTTP version: `'1.1'`, or `'2.0'` over HTTP/2. */
  readonly httpVersion: string;
  /** The stream's or the whole answer's `Content-Encoding` with `compress` (`br`, `gzip`, `deflate`); undefined when sent as is. */
  contentEncoding: string | undefined;
  readonly script: Script;
  headersScheduledAt: number | undefined;
  headersSentAt: number | undefined;
  readonly pieces: SentPiece[];
  /** When the server ended, reset or abandoned the response. */
  endedAt: number | undefined;
  ending: Ending | undefined;
}

export interface ProviderServer {
  readonly url: string;
  readonly port: number;
  /** One record per provider request, in order of arrival (filled in as the response is played). */
  readonly sends: readonly RequestRecord[];
  /** Resolves when every response begun so far has ended (hung ones count once they hang). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

const MAX_PARSED_BODY = 8 * 1024 * 1024;

interface Player {
  readonly settled: Promise<void>;
  stop(ending: Ending): void;
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
/** What the server does to a response; the two protocols' response classes share it. */
interface AnyResponse {
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  write(bytes: string | Uint8Array): boolean;
  end(body?: string | Uint8Array): unknown;
  once(event: 'close' | 'drain', listener: () => void): unknown;
}

/** The transport under one response: HTTP/1.1's socket, or HTTP/2's stream. */
interface Exchange {
  readonly res: AnyResponse;
  gone(): boolean;
  /** Holds writes until `uncork`, so pieces due together leave together. */
  cork(): void;
  uncork(): void;
  /** HTTP/1.1: the connection is reset (RST). HTTP/2: the call's stream is (RST_STREAM). */
  reset(): void;
  /** Sends the headers now, on their own. */
  flushHeaders(): void;
}

function exchangeOf(res: ServerResponse | Http2ServerResponse): Exchange {
  if ('stream' in res) {
    const { stream } = res;
    return {
      res: res as unknown as AnyResponse,
      gone: () => stream.destroyed,
      // Each write goes to the session as it is made; what is queued together may leave in one DATA frame.
      cork: () => {},
      uncork: () => {},
      reset: () => stream.close(http2Constants.NGHTTP2_INTERNAL_ERROR),
      flushHeaders: () => {}, // writeHead sent the HEADERS frame
    };
  }
  return {
    res: res as unknown as AnyResponse,
    gone: () => res.destroyed,
    cork: () => res.socket?.cork(),
    uncork: () => res.socket?.uncork(),
    reset: () => res.socket?.resetAndDestroy(),
    flushHeaders: () => res.flushHeaders(),
  };
}

export async function startProviderServer(options: ProviderServerOptions): Promise<ProviderServer> {
  const writers = { ...defaultWriters(), ...options.writers };
  const spinMs = options.spinMs ?? 0;
  const sends: RequestRecord[] = [];
  const active = new Set<Player>();
  let arrivals = 0;

  const onRequest = (req: AnyRequest, response: ServerResponse | Http2ServerResponse) => {
    const arrivedAt = performance.now();
    const exchange = exchangeOf(response);
    const res = exchange.res;
    const route = routeOf(req.method ?? 'GET', req.url ?? '/');
    if (!route) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: `lanewatch simulator: no provider API at ${req.method} path` } }),
      );
      return;
    }
    const index = arrivals++;
    // The client may leave while the body is read or respond() runs: remember it for play().
    let left = false;
    res.once('close', () => {
      left = true;
    });
    const clientGone = () => left;
    readBody(req).then(({ text, bytes }) => {
      const fields = requestFields(route, text);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const request: ProviderRequest = {
        index,
        format: route.format,
        ...(route.endpoint ? { endpoint: route.endpoint } : {}),
        path,
        ...fields,
        headers: req.headers,
        bodyBytes: bytes,
        arrivedAt,
      };
      const writer = writers[route.format];
      if (route.format === 'gemini' && route.stream && !route.sse) {
        return simulatorError(exchange, 400, 'only alt=sse streaming is simulated for Gemini');
      }
      const start = (script: Script) => {
        const context: WriteContext = {
          model: request.model,
          createdAtMs: Date.now(),
          id: script.kind === 'stream' && script.id !== undefined ? script.id : `sim${request.index}`,
          includeUsage: request.includeUsage,
          ...(request.endpoint ? { endpoint: request.endpoint } : {}),
          ...(acceptsEventStream(req.headers.accept) ? { acceptsEventStream: true } : {}),
        };
        // Rendered before anything is sent, so a script the format cannot carry fails as a whole.
        const rendered: WirePiece[] =
          script.kind === 'stream' && request.stream ? writer.render(script, context) : [];
        const whole =
          script.kind === 'stream' && !request.stream ? wholeReply(script, writer, context) : undefined;
        const record: RequestRecord = {
          request,
          httpVersion: req.httpVersion,
          contentEncoding: undefined,
          script,
          headersScheduledAt: undefined,
          headersSentAt: undefined,
          pieces: [],
          endedAt: undefined,
          ending: undefined,
        };
        sends.push(record);
        const answer = whole?.kind === 'reply' && whole.ending === 'complete';
        const coding =
          options.compress && (rendered.length > 0 || answer)
            ? negotiateCoding(req.headers['accept-encoding'])
            : undefined;
        if (coding !== undefined && answer) record.contentEncoding = coding;
        if (coding === undefined || answer) {
          play(record, writer, context, rendered, undefined, whole, exchange, clientGone);
          return;
        }
        record.contentEncoding = coding;
        codePieces(rendered, coding).then(
          (coded) => play(record, writer, context, rendered, coded, whole, exchange, clientGone),
          (error: unknown) =>
            simulatorError(exchange, 500, `cannot compress this stream: ${describe(error)}`),
        );
      };
      Promise.resolve()
        .then(() => options.respond(request))
        .then((script) => {
          validateScript(script);
          return script;
        })
        .then(
          (script) => {
            try {
              start(script);
            } catch (error) {
              simulatorError(exchange, 500, `cannot play this script: ${describe(error)}`);
            }
          },
          (error: unknown) => simulatorError(exchange, 500, `respond() failed: ${describe(error)}`),
        );
    });
  };
  // One write per piece must leave as its own segment, not wait for an ACK (Nagle).
  const sessions = new Set<Http2Session>();
  const server = options.tls
    ? createSecureServer({ key: options.tls.key, cert: options.tls.cert, allowHTTP1: true }, onRequest)
        .on('secureConnection', (socket: Socket) => socket.setNoDelay(true))
        .on('session', (session: Http2Session) => {
          sessions.add(session);
          session.once('close', () => sessions.delete(session));
        })
    : createServer({ noDelay: true, keepAlive: true }, onRequest);

  const play = (
    record: RequestRecord,
    writer: WireWriter,
    context: WriteContext,
    rendered: readonly WirePiece[],
    coded: CodedPieces | undefined,
    whole: WholeReply | undefined,
    exchange: Exchange,
    clientGone: () => boolean,
  ) => {
    const { res } = exchange;
    const { script, request } = record;
    const origin = request.arrivedAt;
    let timer: DueTimer | undefined;
    let settle = () => {};
    const player: Player = {
      settled: new Promise<void>((resolve) => {
        settle = resolve;
      }),
      stop(ending) {
        timer?.cancel();
        end(ending);
      },
    };
    active.add(player);
    // Sets how the response ended, once. A hung or unanswered response is settled (nothing more will
    // be sent) but stays open until the client or close() ends it.
    const end = (ending: Ending) => {
      if (record.ending === undefined) {
        record.ending = ending;
        record.endedAt = performance.now();
      }
      settle();
      if (ending !== 'hang' && ending !== 'no-answer') active.delete(player);
    };
    if (clientGone()) {
      end('client-closed');
      return;
    }
    res.once('close', () => player.stop(res.writableFinished ? 'complete' : 'client-closed'));
    // A response sent whole (an error, a non-streaming answer): headers and body in one go, at its time.
    const sendWhole = (atMs: number, reply: HttpReply, ending: Ending) => {
      record.headersScheduledAt = origin + atMs;
      timer = runAt(
        record.headersScheduledAt,
        () => {
          const coding = ending === 'complete' ? record.contentEncoding : undefined;
          const body = coding === undefined ? reply.body : codeWhole(reply.body, coding as StreamCoding);
          record.headersSentAt = performance.now();
          res.writeHead(reply.status, {
            ...reply.headers,
            ...(coding === undefined ? {} : { 'content-encoding': coding, vary: 'accept-encoding' }),
            'content-length': Buffer.byteLength(body),
          });
          res.end(body);
          end(ending);
        },
        spinMs,
      );
    };
    const reset = (atMs: number) => {
      timer = runAt(origin + atMs, () => {
        end('reset');
        exchange.reset();
      });
    };

    switch (script.kind) {
      case 'no-answer':
        end('no-answer');
        return;
      case 'reset':
        reset(script.delayMs);
        return;
      case 'error':
        sendWhole(script.headersDelayMs, writer.errorReply(script, context), 'error-reply');
        return;
      case 'stream':
        break;
    }
    if (whole) {
      if (whole.kind === 'reply') sendWhole(whole.atMs, whole.reply, whole.ending);
      else if (whole.kind === 'reset') reset(whole.atMs);
      else timer = runAt(origin + whole.atMs, () => end('hang'));
      return;
    }

    const { headersAtMs, piecesAtMs } = scheduleOf(script);
    let next = 0;
    // Writes every piece that is due, in order; true when the next one is a reset.
    const writeDue = (): boolean => {
      while (next < script.pieces.length) {
        const piece = script.pieces[next];
        if (piece === undefined || exchange.gone()) return false;
        const scheduledAt = origin + (piecesAtMs[next] ?? 0);
        if (performance.now() < scheduledAt) {
          timer = runAt(scheduledAt, advance, spinMs);
          return false;
        }
        const index = next++;
        const sentAt = performance.now();
        // Text is written as UTF-8, bytes (binary framings) as they are; compressed with `compress`.
        const bytes = rendered[index] ?? '';
        const length = wirePieceBytes(bytes);
        const wire = coded === undefined ? bytes : (coded.pieces[index] ?? '');
        record.pieces.push({ index, kind: piece.kind, scheduledAt, sentAt, bytes: length });
        if (piece.kind === 'reset') return true;
        if (piece.kind === 'hang') {
          end('hang');
          return false;
        }
        // Respect backpressure: the next piece waits for 'drain' (and is then as late as it must be).
        if (length > 0 && !res.write(wire)) {
          res.once('drain', advance);
          return false;
        }
      }
      res.end(coded?.tail);
      end('complete');
      return false;
    };
    // Pieces due at the same moment leave for the socket together, in one write, each its own
    // chunk of the chunked encoding, as Node 24 sends the writes of one tick by itself. Node 26
    // merges such writes into one chunk unless the socket is corked already (the test holds it);
    // writing each by itself would wake the client once a piece and change what a benchmark
    // measures (see the README).
    const advance = () => {
      timer = undefined;
      exchange.cork();
      const reset = writeDue();
      exchange.uncork(); // the bytes before a reset leave before it
      if (reset) {
        end('reset');
        exchange.reset();
      }
    };

    record.headersScheduledAt = origin + headersAtMs;
    timer = runAt(
      record.headersScheduledAt,
      () => {
        record.headersSentAt = performance.now();
        const coding = record.contentEncoding;
        res.writeHead(200, {
          ...writer.streamHeaders(context),
          ...(coding === undefined ? {} : { 'content-encoding': coding, vary: 'accept-encoding' }),
        });
        // The headers leave now, on their own, as a provider's do while the first event is far off.
        exchange.flushHeaders();
        advance();
      },
      spinMs,
    );
  };

  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `${options.tls ? 'https' : 'http'}://${host}:${address.port}`,
    port: address.port,
    sends,
    async settled() {
      await Promise.all([...active].map((player) => player.settled));
    },
    async close() {
      for (const player of [...active]) player.stop('server-closed');
      const closed = once(server, 'close');
      server.close();
      if ('closeAllConnections' in server) server.closeAllConnections();
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}

function readBody(req: AnyRequest): Promise<{ text: string | undefined; bytes: number }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_PARSED_BODY) chunks.push(chunk);
    });
    const done = () =>
      resolve({ text: bytes <= MAX_PARSED_BODY ? Buffer.concat(chunks).toString('utf8') : undefined, bytes });
    req.once('end', done);
    req.once('error', done);
  });
}

function simulatorError(exchange: Exchange, status: number, message: string): void {
  const { res } = exchange;
  if (res.headersSent || exchange.gone()) return;
  const body = JSON.stringify({
    error: { message: `lanewatch simulator: ${message}`, type: 'simulator_error' },
  });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Whether an `Accept` header names `text/event-stream` (with any parameters, any case). */
function acceptsEventStream(accept: string | undefined): boolean {
  const ranges = accept?.split(',') ?? [];
  return ranges.some((range) => range.split(';')[0]?.trim().toLowerCase() === 'text/event-stream');
}
