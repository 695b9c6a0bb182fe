import diagnosticsChannel from 'node:diagnostics_channel';
import {
  context,
  type DiagLogger,
  diag,
  isSpanContextValid,
  type Meter,
  type MeterProvider,
  metrics,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { Instrumentation, InstrumentationConfig } from '@opentelemetry/instrumentation';
import type { MetricProducer } from '@opentelemetry/sdk-metrics';
import { attemptFromContext } from './attempt-context.ts';
import { CallRecord, outcomeOf } from './call-record.ts';
import { CallInstruments, type CallResult, CallTargets, recordCall } from './call-telemetry.ts';
import { contentCodingOf, DecodingDetector } from './content-coding.ts';
import { type ChunkSink, PassThroughHandler, passThroughDispatch } from './dispatcher-pass-through.ts';
import { classifyTransportError } from './error-type.ts';
import { lanewatchViews } from './exponential-views.ts';
import { type Format, type StreamDetector, selectFormat } from './formats/index.ts';
import { answerDetectorFor, readBedrockInvokeHeaders } from './formats/json-answer.ts';
import { LaneMap, type LaneMapInput, laneMapFromEnv } from './lane-map.ts';
import { INSTRUMENTATION_SCOPE } from './names.ts';
import { type AttributeSets, OwnMeter, type ReaderChoices } from './own-meter.ts';
import type { OwnTracer, SpanStarter } from './own-tracer.ts';
import { digestChunk, RepeatedCalls } from './repeated-calls.ts';
import {
  type Endpoint,
  Endpoints,
  identifyRequest,
  modelFromJsonBody,
  type UndiciRequestLike,
} from './request-identity.ts';
import { stderrOnce } from './stderr-once.ts';
import { VERSION } from './version.ts';

export interface LanewatchInstrumentationConfig extends InstrumentationConfig {
  /**
   * Lane names by URL prefix (`{ fast: 'http://127.0.0.1:8001/v1' }` or `[{ lane, url }]`). Requests
   * outside every prefix are named `provider/model`. Default: `LANEWATCH_LANE_MAP`, else none.
   */
  lanes?: LaneMapInput;
  /** Track POSTs to unknown endpoints whose response is SSE or NDJSON (first chunk and end). Default true. */
  unknownStreams?: boolean;
  /** Distinct values kept per attribute (lane, model, server) before new ones fold into `other`. Default 100. */
  maxAttributeValues?: number;
  /** Emit a span per attempt (metrics are always recorded). Default true. */
  spans?: boolean;
  /**
   * Number a call that repeats one that failed as that call's next attempt, when nothing else
   * numbers it: the same body, sent to the same endpoint (in the same trace, or both outside any
   * span) after a call that ended in an error or truncated, at most 2 minutes after it. The AI
   * SDK, LangChain and Google's client retry so, with no retry header. A retry header or
   * `withAttempt` that says more wins; `withAttempt` always does. Turn it off for a load generator
   * that sends one request over and over (or number its calls with `withAttempt`). Default true;
   * `register` reads `LANEWATCH_INFER_RETRIES`.
   */
  inferRetries?: boolean;
  /**
   * Record finished calls in batches — up to 32 at once, at most 50 ms after the first of them
   * ended — instead of one by one: the SDK's recording code then runs warm, and a call costs less
   * CPU where calls end often. Every instant is the one measured; only the handing over
   * to the SDK waits. Held calls are recorded before every metric collection (periodic, `forceFlush`,
   * shutdown), by `flush()` and by `disable()`; `register` turns this on and flushes before its SDK
   * shuts down. With an SDK of your own, call `flush()` before shutting it down: spans of calls that
   * ended in the last 50 ms would otherwise miss the span processor. Default false.
   */
  batchRecording?: boolean;
}

/** Calls held by `batchRecording` before they are recorded together. */
const BATCH_CALLS = 32;
/** The longest a finished call is held by `batchRecording`, in milliseconds. */
const BATCH_DELAY_MS = 50;

interface HeldCall {
  readonly record: CallRecord;
  readonly result: CallResult;
  readonly tracer: SpanStarter | undefined;
}

interface HeadersMessage {
  request: UndiciRequestLike;
  response: { statusCode: number; headers: ResponseHeaders };
}
/**
 * Response headers as undici publishes them: name/value pairs (HTTP/1.1; HTTP/2 before undici 8),
 * or an object of lower-case names (HTTP/2 from undici 8 on, which Node 26's fetch and the undici 8
 * package negotiate by default with a TLS server that offers it).
 */
type ResponseHeaders = readonly unknown[] | string | Readonly<Record<string, unknown>>;
interface ChunkMessage {
  request: UndiciRequestLike;
  chunk: Uint8Array;
}
interface ErrorMessage {
  request: UndiciRequestLike;
  error: unknown;
}

/** The process-wide active instance: a second one stays passive, so nothing is counted twice. */
const ACTIVE = Symbol.for('lanewatch.instrumentation.active');
type GlobalWithActive = typeof globalThis & { [ACTIVE]?: LanewatchInstrumentation };

/**
 * Observes every fetch/undici streaming call at the undici layer and records its milestones (DESIGN
 * §1) as span events and exponential histograms, with no content. Works in any OpenTelemetry Node
 * setup; `@lanewatch/instrumentation/register` starts one for `node --require` / `--import`.
 */
export class LanewatchInstrumentation implements Instrumentation<LanewatchInstrumentationConfig> {
  readonly instrumentationName = INSTRUMENTATION_SCOPE;
  readonly instrumentationVersion = VERSION;
  #config: LanewatchInstrumentationConfig = {};
  #diag: DiagLogger = diag.createComponentLogger({ namespace: INSTRUMENTATION_SCOPE });
  #tracer: Tracer = trace.getTracer(INSTRUMENTATION_SCOPE, VERSION);
  #records = new WeakMap<object, CallRecord>();
  #passThroughRecords = new WeakMap<PassThroughHandler, CallRecord>();
  #subscriptions: Array<{ name: string; listener: (message: unknown, name: string | symbol) => void }> = [];
  #removePassThrough: (() => void) | undefined;
  #handlerSymbols = new WeakMap<object, symbol | null>();
  #warnedUnsupported = false;
  /** Content codings already reported as unreadable (a few at most; each is said once). */
  #warnedCodings = new Set<string>();
  /** Calls that failed lately, so that a retry that says nothing is still numbered. */
  #repeats = new RepeatedCalls();
  /** The format each endpoint's responses get, by content type: decided once per pair. */
  #formats = new WeakMap<Endpoint, Map<string | undefined, Format | null>>();
  #endpoints = new Endpoints(new LaneMap(undefined));
  #targets = new CallTargets(100);
  #instruments = new CallInstruments(metrics.getMeter(INSTRUMENTATION_SCOPE, VERSION), () => this.flush());
  /** Set by `useOwnTracer`: the spans are made by lanewatch and go to the SDK's span processor. */
  #ownTracer: OwnTracer | undefined;
  /** Set by `useOwnMeter`: the histograms go to lanewatch's own meter, not the SDK's. */
  #ownMeter = false;
  /** Made by `metricProducer()`: the own meter it starts when the SDK hands over its provider. */
  #own: OwnMeter | undefined;
  #enabled = false;
  /** Finished calls `batchRecording` holds, and the timer that records them at the latest. */
  #held: HeldCall[] = [];
  #heldTimer: NodeJS.Timeout | undefined;

  /** Enabled at once unless `enabled: false`, like every OpenTelemetry instrumentation. */
  constructor(config: LanewatchInstrumentationConfig = {}) {
    this.setConfig(config);
    if (this.#config.enabled) this.enable();
  }

  getConfig(): LanewatchInstrumentationConfig {
    return this.#config;
  }

  setConfig(config: LanewatchInstrumentationConfig = {}): void {
    // A bad option is the developer's input: it throws here, at construction, with what to fix. A bad
    // LANEWATCH_LANE_MAP is the environment's: said once on stderr, and the application runs.
    this.#endpoints = new Endpoints(
      new LaneMap(config.lanes ?? laneMapFromEnv(process.env.LANEWATCH_LANE_MAP, stderrOnce)),
    );
    const cap = config.maxAttributeValues ?? DEFAULT_MAX_ATTRIBUTE_VALUES;
    if (!Number.isInteger(cap) || cap < 1) {
      throw new RangeError(
        `lanewatch: maxAttributeValues must be a whole number, 1 or more (default ${DEFAULT_MAX_ATTRIBUTE_VALUES}), ` +
          `not ${typeof cap === 'number' ? cap : `a ${typeof cap}`}`,
      );
    }
    this.#targets = new CallTargets(cap);
    this.#config = { ...config, enabled: config.enabled ?? true };
  }

  setTracerProvider(tracerProvider: TracerProvider): void {
    this.#tracer = tracerProvider.getTracer(INSTRUMENTATION_SCOPE, VERSION);
    this.#warnIfUnsupported();
  }

  setMeterProvider(meterProvider: MeterProvider): void {
    this.flush(); // held calls belong to the provider they ended under
    if (this.#own !== undefined && !this.#ownMeter)
      this.useOwnMeter(this.#own.meter(lanewatchViews()), this.#own.sets);
    if (this.#ownMeter) {
      this.#warnIfUnsupported();
      return;
    }
    this.#instruments = new CallInstruments(meterProvider.getMeter(INSTRUMENTATION_SCOPE, VERSION), () =>
      this.flush(),
    );
    this.#warnIfUnsupported();
  }

  /**
   * With an SDK of your own: a metric producer for one of its metric readers, so that lanewatch's
   * histograms are recorded as `register` records them — each point under a stand-in for its
   * attribute set, in a meter provider of lanewatch's own — and collected by that reader with each
   * point's attributes back:
   * `new PeriodicExportingMetricReader({ exporter, metricProducers: [lanewatch.metricProducer(exporter)] })`.
   * `choices` (the reader's exporter) sets the points' temporality and aggregation;
   * lanewatch's histograms are exponential (`lanewatchViews()`) whatever it prefers. One per reader,
   * all before the SDK starts: the own meter starts when the SDK hands over its meter provider.
   */
  metricProducer(choices?: ReaderChoices): MetricProducer {
    if (this.#ownMeter) {
      throw new Error(
        'lanewatch: metricProducer() must be called before the SDK starts: its meter provider is already handed over',
      );
    }
    this.#own ??= new OwnMeter(() => this.flush());
    return this.#own.producerFor(() => choices);
  }

  /**
   * What `register` does (see `OwnMeter`): the histograms are recorded into `meter`, each point under
   * the stand-in of its attribute set from `sets`, and reach the SDK's readers through the producers
   * made with them; the meter provider an SDK hands over is not used for them after this.
   */
  useOwnMeter(meter: Meter, sets: AttributeSets): void {
    this.flush();
    this.#ownMeter = true;
    this.#instruments = new CallInstruments(meter, undefined, sets);
  }

  /**
   * What `register` does under the SDK's default sampler and span limits (see `OwnTracer`): spans
   * are made by `tracer`, which hands them to the SDK's span processor; the tracer provider an SDK
   * hands over is not used for them after this.
   */
  useOwnTracer(tracer: OwnTracer): void {
    this.flush();
    this.#ownTracer = tracer;
  }

  /**
   * Said when an SDK hands over its providers: by then it has set up the diag logger, which a
   * message from the constructor (made before the SDK, as its argument) would miss.
   */
  #warnIfUnsupported(): void {
    if (this.#warnedUnsupported || supportedNode()) return;
    this.#warnedUnsupported = true;
    this.#diag.warn(
      `Node ${process.version} is not supported (needs ${MIN_NODE.join('.')} or later); lanewatch stays off`,
    );
  }

  enable(): void {
    if (this.#enabled) return;
    // Older Node bundles an undici whose requests this cannot follow: it would record calls without
    // their model or their end (every stream `truncated`). Nothing is better than that.
    if (!supportedNode()) return;
    const g = globalThis as GlobalWithActive;
    if (g[ACTIVE] !== undefined && g[ACTIVE] !== this) {
      this.#diag.warn(
        'another lanewatch instrumentation is already active in this process; this one stays off',
      );
      return;
    }
    g[ACTIVE] = this;
    this.#enabled = true;
    this.#subscribe('undici:request:create', (m) => this.#onCreate(m as { request: UndiciRequestLike }));
    this.#subscribe('undici:request:bodyChunkSent', (m) => this.#onBodySent(m as ChunkMessage));
    this.#subscribe('undici:request:headers', (m) => this.#onHeaders(m as HeadersMessage));
    this.#subscribe('undici:request:bodyChunkReceived', (m) => this.#onChunk(m as ChunkMessage));
    this.#subscribe('undici:request:trailers', (m) =>
      this.#onEnd((m as { request: UndiciRequestLike }).request),
    );
    this.#subscribe('undici:request:error', (m) => this.#onError(m as ErrorMessage));
    this.#installPassThrough();
  }

  disable(): void {
    this.flush();
    if (!this.#enabled) return;
    this.#enabled = false;
    for (const { name, listener } of this.#subscriptions) diagnosticsChannel.unsubscribe(name, listener);
    this.#subscriptions = [];
    this.#removePassThrough?.();
    this.#removePassThrough = undefined;
    const g = globalThis as GlobalWithActive;
    if (g[ACTIVE] === this) delete g[ACTIVE];
  }

  #subscribe(name: string, handle: (message: unknown) => void): void {
    // Whatever goes wrong in here is reported through the OTel diag logger, never thrown into undici.
    const listener = (message: unknown) => {
      try {
        handle(message);
      } catch (error) {
        this.#failed(name, error);
      }
    };
    diagnosticsChannel.subscribe(name, listener);
    this.#subscriptions.push({ name, listener });
  }

  /**
   * undici < 7.11 (Node 22's bundled undici 6) publishes no body chunks: put a pass-through in front
   * of the global dispatcher, which global fetch and the undici package's top-level API share.
   */
  #installPassThrough(): void {
    if (bundledUndiciPublishesChunks()) return;
    // Reading `fetch` makes Node load its bundled undici, which creates the global dispatcher.
    void globalThis.fetch;
    const dispatcher = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')];
    if (
      typeof dispatcher !== 'object' ||
      dispatcher === null ||
      typeof (dispatcher as { dispatch?: unknown }).dispatch !== 'function'
    ) {
      this.#diag.warn('no undici global dispatcher found; body chunks of global fetch will not be observed');
      return;
    }
    // Called for every body chunk: no closure is made per call.
    const sink: ChunkSink = {
      onBodyChunk: (handler, chunk) => {
        try {
          this.#feed(this.#passThroughRecords.get(handler), chunk);
        } catch (error) {
          this.#failed('bodyChunk', error);
        }
      },
      onBodySent: (handler, chunk) => {
        try {
          this.#sent(this.#passThroughRecords.get(handler), chunk);
        } catch (error) {
          this.#failed('bodySent', error);
        }
      },
    };
    this.#removePassThrough = passThroughDispatch(
      dispatcher as { dispatch: (o: unknown, h: unknown) => unknown },
      sink,
    );
  }

  #failed(what: string, error: unknown): void {
    this.#diag.error(`lanewatch failed on ${what}: ${errorClass(error)}`);
  }

  // t1 — undici created the request: the moment it was handed over.
  #onCreate({ request }: { request: UndiciRequestLike }): void {
    const t1 = performance.now();
    const identity = identifyRequest(request, this.#endpoints);
    if (identity === undefined) return;
    const { endpoint } = identity;
    if (
      endpoint.family === undefined &&
      endpoint.configuredLane === undefined &&
      this.#config.unknownStreams === false
    )
      return;
    const active = context.active();
    const record = new CallRecord(identity, active, t1);
    const contextAttempt = attemptFromContext(active);
    if (contextAttempt !== undefined) record.contextAttempt = contextAttempt;
    if (identity.model === undefined && request.body instanceof Uint8Array) {
      identity.model = modelFromJsonBody(request.body);
    }
    if (this.#removePassThrough !== undefined) {
      const handler = this.#handlerOf(request);
      if (handler instanceof PassThroughHandler) {
        record.chunksFromPassThrough = true;
        this.#passThroughRecords.set(handler, record);
      }
    }
    this.#records.set(request, record);
  }

  #onBodySent({ request, chunk }: ChunkMessage): void {
    const record = this.#records.get(request);
    if (record !== undefined && !record.chunksFromPassThrough) this.#sent(record, chunk);
  }

  #sent(record: CallRecord | undefined, chunk: Uint8Array): void {
    if (record === undefined) return;
    if (record.identity.model === undefined && record.sentBytes === 0) {
      record.identity.model = modelFromJsonBody(chunk);
    }
    record.sentBytes += chunk.byteLength;
    record.bodyDigest = digestChunk(record.bodyDigest, chunk);
  }

  // t2 — response headers; the content type and the path choose the format detector.
  #onHeaders({ request, response }: HeadersMessage): void {
    const record = this.#records.get(request);
    if (record === undefined) return;
    record.headersAt = performance.now();
    record.statusCode = response.statusCode;
    if (response.statusCode >= 300 && response.statusCode < 400) {
      // A redirect hop: fetch follows it with a new request, which is the call.
      this.#records.delete(request);
      return;
    }
    if (response.statusCode >= 400) return;
    const contentType = headerOf(response.headers, CONTENT_TYPE);
    const { endpoint } = record.identity;
    const format = this.#formatOf(endpoint, contentType);
    if (format === undefined) {
      if (endpoint.family === undefined && endpoint.configuredLane === undefined) {
        this.#records.delete(request); // not a stream and not a lane: not our business
      } else if (endpoint.family === 'bedrock_invoke') {
        readBedrockInvokeHeaders((name) => headerOf(response.headers, name), record);
      } else {
        // A whole JSON answer: its token counts, at its end. Not a stream: no format, no milestones.
        const answer = answerDetectorFor(endpoint.family, contentType, record);
        if (answer !== undefined)
          this.#read(record, answer, headerOf(response.headers, CONTENT_ENCODING), false);
      }
      return;
    }
    record.format = format;
    this.#read(record, format.createDetector(record), headerOf(response.headers, CONTENT_ENCODING), true);
  }

  /** Reads the body with `detector`, through a decoder when it is coded; `stream`: warn when it cannot. */
  #read(
    record: CallRecord,
    detector: StreamDetector,
    contentEncoding: string | undefined,
    stream: boolean,
  ): void {
    const coding = contentEncoding === undefined ? undefined : contentCodingOf(contentEncoding);
    if (coding === null) {
      if (!stream) return;
      record.unreadBody = true;
      this.#warnUnreadable(contentEncoding as string);
      return;
    }
    record.detector =
      coding === undefined
        ? detector
        : new DecodingDetector(coding, detector, record, (error) => this.#failed('bodyChunk', error));
  }

  #warnUnreadable(contentEncoding: string): void {
    const coding = contentEncoding
      .trim()
      .toLowerCase()
      .slice(0, 40)
      .replace(/[^a-z0-9, _-]/g, '?');
    if (this.#warnedCodings.has(coding) || this.#warnedCodings.size >= 8) return;
    this.#warnedCodings.add(coding);
    this.#diag.warn(
      `a stream came with content-encoding "${coding}", which lanewatch cannot decode: such calls record their headers and end only`,
    );
  }

  #onChunk({ request, chunk }: ChunkMessage): void {
    const record = this.#records.get(request);
    if (record !== undefined && !record.chunksFromPassThrough) this.#feed(record, chunk);
  }

  #feed(record: CallRecord | undefined, chunk: Uint8Array): void {
    record?.detector?.feed(chunk);
  }

  // t6 — the body ended.
  #onEnd(request: UndiciRequestLike): void {
    const record = this.#records.get(request);
    if (record === undefined || record.finished) return;
    record.endAt = performance.now();
    this.#ended(request, record, undefined);
  }

  // t6 — the request failed or was aborted.
  #onError({ request, error }: ErrorMessage): void {
    const record = this.#records.get(request);
    if (record === undefined || record.finished) return;
    record.endAt = performance.now();
    this.#ended(request, record, classifyTransportError(error));
  }

  /**
   * The call is over (its end instant taken): its stream is read to the end, then it is judged. A
   * coded body's last chunks may still be in lanewatch's decoder; they are read (each stamped with
   * its own arrival) before the call is judged — the openai client, say, lets go of a body once its
   * own decoder has given it `[DONE]`, which may be before lanewatch's has.
   */
  #ended(
    request: UndiciRequestLike,
    record: CallRecord,
    failure: { cancelled: boolean; type: string } | undefined,
  ): void {
    const detector = record.detector;
    if (!(detector instanceof DecodingDetector)) {
      if (failure === undefined) detector?.end(); // an NDJSON last line without its newline still counts
      this.#finish(request, record, failure);
      return;
    }
    record.finished = true;
    this.#records.delete(request);
    detector.close(failure === undefined, () => {
      try {
        this.#finish(request, record, failure);
      } catch (error) {
        this.#failed('finishing a call', error);
      }
    });
  }

  #finish(
    request: UndiciRequestLike,
    record: CallRecord,
    failure: { cancelled: boolean; type: string } | undefined,
  ): void {
    record.finished = true;
    // Nothing of the stream is read after the end: a call held for batch recording keeps no
    // detector state (partial lines, buffers) alive across collections.
    record.detector = undefined;
    this.#records.delete(request);
    const tracer = this.#config.spans === false ? undefined : (this.#ownTracer ?? this.#tracer);
    const result = outcomeOf(record, failure);
    record.attempt = this.#attemptOf(record, result);
    if (this.#config.batchRecording !== true) {
      recordCall(record, result, this.#instruments, tracer, this.#targets);
      return;
    }
    this.#held.push({ record, result, tracer });
    if (this.#held.length >= BATCH_CALLS) this.flush();
    else this.#heldTimer ??= setTimeout(this.#flushWhenDue, BATCH_DELAY_MS).unref();
  }

  /**
   * The attempt a call was: the caller's context if it set one, else the retry header or (see
   * `inferRetries`) one more than the failed call it repeats, whichever is larger; else 1.
   */
  #attemptOf(record: CallRecord, result: CallResult): number {
    const { endpoint, headerAttempt } = record.identity;
    if (this.#config.inferRetries === false) return record.contextAttempt ?? headerAttempt ?? 1;
    const spanContext = trace.getSpanContext(record.parentContext);
    const traceId = spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext.traceId : '';
    const attempt = this.#repeats.attemptOf(
      {
        endpoint: `${traceId}${endpoint.origin}${endpoint.path}`,
        sentBytes: record.sentBytes,
        digest: record.bodyDigest,
        t1: record.t1,
        endAt: record.endAt ?? performance.now(),
        ended: result.outcome === 'ok' || result.outcome === 'cancelled' ? result.outcome : 'failed',
      },
      record.contextAttempt ?? headerAttempt,
    );
    return record.contextAttempt ?? attempt;
  }

  /**
   * Records every finished call that `batchRecording` still holds. Called before each metric
   * collection, by `disable()`, and by `register` before its SDK shuts down; call it before shutting
   * down an SDK of your own. Never throws.
   */
  flush(): void {
    if (this.#heldTimer !== undefined) {
      clearTimeout(this.#heldTimer);
      this.#heldTimer = undefined;
    }
    if (this.#held.length === 0) return;
    const held = this.#held;
    this.#held = [];
    for (const { record, result, tracer } of held) {
      try {
        recordCall(record, result, this.#instruments, tracer, this.#targets);
      } catch (error) {
        this.#failed('recording a call', error);
      }
    }
  }

  readonly #flushWhenDue = (): void => {
    this.#heldTimer = undefined;
    this.flush();
  };

  #formatOf(endpoint: Endpoint, contentType: string | undefined): Format | undefined {
    let byType = this.#formats.get(endpoint);
    const known = byType?.get(contentType);
    if (known !== undefined) return known ?? undefined;
    const format = selectFormat(endpoint.path, contentType, endpoint.family);
    if (byType === undefined) {
      byType = new Map();
      this.#formats.set(endpoint, byType);
    }
    if (byType.size < 16) byType.set(contentType, format ?? null);
    return format;
  }

  /** undici keeps a request's handler under a private symbol named `handler`; found once per class. */
  #handlerOf(request: UndiciRequestLike): unknown {
    const proto = Object.getPrototypeOf(request) as object | null;
    if (proto === null) return undefined;
    let symbol = this.#handlerSymbols.get(proto);
    if (symbol === undefined) {
      symbol = Object.getOwnPropertySymbols(request).find((s) => s.description === 'handler') ?? null;
      this.#handlerSymbols.set(proto, symbol);
    }
    return symbol === null ? undefined : (request as unknown as Record<symbol, unknown>)[symbol];
  }
}

const CONTENT_TYPE = 'content-type';
const CONTENT_ENCODING = 'content-encoding';

/**
 * A response header's value (`name` lower case), in any of the forms undici publishes. Names arrive
 * as Buffers in pairs: lengths are compared before any is decoded.
 */
function headerOf(headers: ResponseHeaders, name: string): string | undefined {
  if (typeof headers === 'string') {
    for (const line of headers.split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon === name.length && line.slice(0, colon).toLowerCase() === name)
        return line.slice(colon + 1).trim();
    }
    return undefined;
  }
  if (!Array.isArray(headers)) {
    if (headers === null || typeof headers !== 'object') return undefined;
    const value = (headers as Readonly<Record<string, unknown>>)[name];
    if (typeof value === 'string') return value;
    return Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
  }
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const header = headers[i] as string | Uint8Array | undefined;
    if (header === undefined || header.length !== name.length) continue;
    if (String(header).toLowerCase() === name) return String(headers[i + 1]);
  }
  return undefined;
}

/** Distinct lanes, models and servers kept before new ones fold into `other`. */
const DEFAULT_MAX_ATTRIBUTE_VALUES = 100;

/** The oldest Node lanewatch runs on: the floor of current OpenTelemetry JS, and of its tests. */
export const MIN_NODE = [22, 15] as const;

/** Whether this Node (or `version`, as in `process.versions.node`) is one lanewatch supports. */
export function supportedNode(version = process.versions.node): boolean {
  return atLeast(version, MIN_NODE);
}

/** undici ≥ 7.11 publishes `undici:request:bodyChunkReceived` (Node ≥ 24.4 bundles it). */
export function bundledUndiciPublishesChunks(version = process.versions.undici): boolean {
  return atLeast(version ?? '0.0', [7, 11]);
}

/** Whether a `major.minor.patch` version is at least `major.minor`. */
function atLeast(version: string, [major, minor]: readonly [number, number]): boolean {
  const [have = 0, haveMinor = 0] = version.split('.').map(Number);
  return have > major || (have === major && haveMinor >= minor);
}

function errorClass(error: unknown): string {
  if (error instanceof Error) return (error as { code?: string }).code ?? error.name;
  return typeof error;
}
