import {
  type Attributes,
  type AttributeValue,
  type Context,
  type HrTime,
  type Link,
  SamplingDecision,
  type SpanContext,
  type SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import {
  hrTimeDuration,
  type InstrumentationScope,
  isAttributeValue,
  isTracingSuppressed,
  millisToHrTime,
} from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  type IdGenerator,
  RandomIdGenerator,
  type ReadableSpan,
  type Sampler,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace';

/** What lanewatch does with a span it records: the part of the API's `Span` that `recordCall` uses. */
export interface RecordingSpan {
  isRecording(): boolean;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, time: TimeInput): unknown;
  setStatus(status: SpanStatus): unknown;
  end(time: TimeInput): void;
}

/** Where lanewatch's spans are started: an SDK's tracer, or `OwnTracer`. */
export interface SpanStarter {
  startSpan(name: string, options: SpanOptions, context: Context): RecordingSpan;
}

export interface OwnTracerOptions {
  /** The span processor of the application's SDK: it gets every span, as the SDK's would. */
  readonly spanProcessor: SpanProcessor;
  /** The resource and scope the SDK's tracer gives lanewatch's spans (see `sdkSpanIdentity`). */
  readonly resource: Resource;
  readonly scope: InstrumentationScope;
  readonly sampler: Sampler;
  readonly idGenerator?: IdGenerator;
}

/**
 * lanewatch's spans made by lanewatch, as what the SDK's span processors read (`ReadableSpan`), and
 * handed to the application SDK's span processor: what `register` runs under its default sampler
 * and span limits.
 *
 * Why: lanewatch records a span only once its call has ended, with every attribute and event known
 * and valid, and never changes it after. The SDK's tracer does work such a span does not need —
 * it copies and checks the start attributes twice (a `WeakSet` a value), checks each later attribute
 * and event against the limits, builds every timestamp from three arrays — and in a whole process
 * that was most of what the span cost (see bench/RESULTS.md). This makes the same span:
 * the SDK's sampler decides, the SDK's id generator names it, its instants are anchored to the wall
 * clock as the SDK anchors them (`anchoredHrTime`: the SDK's arithmetic), and the SDK's span
 * processor batches and exports it with the SDK's resource. It is no general tracer: whatever it is not given (links, limits
 * that would cut a lanewatch span) is the SDK tracer's job, which `register` uses then.
 */
export class OwnTracer implements SpanStarter {
  readonly #processor: SpanProcessor;
  readonly #resource: Resource;
  readonly #scope: InstrumentationScope;
  readonly #sampler: Sampler;
  readonly #ids: IdGenerator;

  constructor(options: OwnTracerOptions) {
    this.#processor = options.spanProcessor;
    this.#resource = options.resource;
    this.#scope = options.scope;
    this.#sampler = options.sampler;
    this.#ids = options.idGenerator ?? new RandomIdGenerator();
  }

  /** As the SDK's `Tracer.startSpan` decides: suppressed, sampled out, or recording (and maybe sampled). */
  startSpan(name: string, options: SpanOptions, context: Context): RecordingSpan {
    if (isTracingSuppressed(context)) return NOT_RECORDING;
    const parent = trace.getSpanContext(context);
    const validParent = parent !== undefined && trace.isSpanContextValid(parent) ? parent : undefined;
    const traceId = validParent?.traceId ?? this.#ids.generateTraceId();
    const spanId = this.#ids.generateSpanId();
    const kind = options.kind ?? 0;
    const attributes: Attributes = { ...options.attributes };
    dropInvalid(attributes);
    const sampling = this.#sampler.shouldSample(context, traceId, name, kind, attributes, NO_LINKS);
    if (sampling.decision === SamplingDecision.NOT_RECORD) return NOT_RECORDING;
    addAttributes(attributes, sampling.attributes);
    const traceState = sampling.traceState ?? validParent?.traceState;
    const spanContext: SpanContext = {
      traceId,
      spanId,
      traceFlags:
        sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
      ...(traceState !== undefined && { traceState }),
    };
    const span = new OwnSpan(
      name,
      kind,
      spanContext,
      validParent,
      attributes,
      options.startTime,
      this.#processor,
      this.#resource,
      this.#scope,
    );
    this.#processor.onStart(span as unknown as Parameters<SpanProcessor['onStart']>[0], context);
    return span;
  }
}

/** No span of lanewatch's has links; shared, so frozen (span processors and samplers only read it). */
const NO_LINKS = Object.freeze([]) as unknown as Link[];
const NO_EVENT_ATTRIBUTES: Attributes = Object.freeze({});

/** The SDK's rule for a span's attributes: an undefined value, an empty key or one that is no attribute value is left out. */
function kept(key: string, value: unknown): value is AttributeValue {
  return value !== undefined && key.length > 0 && isAttributeValue(value);
}

function addAttributes(to: Attributes, from: Attributes | undefined): void {
  if (from === undefined) return;
  for (const key in from) {
    const value = from[key];
    if (kept(key, value)) to[key] = value;
  }
}

/** The same rule over an object copied whole (a copy of the start attributes): what it breaks is deleted. */
function dropInvalid(attributes: Attributes): void {
  for (const key in attributes) if (!kept(key, attributes[key])) delete attributes[key];
}

/** One recording span, readable by span processors and exporters once it has ended. */
class OwnSpan implements RecordingSpan, ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly attributes: Attributes;
  readonly links: Link[] = NO_LINKS;
  readonly events: TimedEvent[] = [];
  readonly startTime: HrTime;
  endTime: HrTime = [0, 0];
  duration: HrTime = [-1, -1];
  status: SpanStatus = { code: SpanStatusCode.UNSET };
  ended = false;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  readonly #spanContext: SpanContext;
  readonly #processor: SpanProcessor;
  /** Epoch milliseconds minus `performance.timeOrigin + performance.now()`: the SDK's anchor, per span. */
  readonly #offset: number;
  /** `performance.now()` when the span was made. */
  readonly #madeAt: number;

  constructor(
    name: string,
    kind: SpanKind,
    spanContext: SpanContext,
    parent: SpanContext | undefined,
    attributes: Attributes,
    startTime: TimeInput | undefined,
    processor: SpanProcessor,
    resource: Resource,
    scope: InstrumentationScope,
  ) {
    const now = Date.now();
    this.#madeAt = performance.now();
    this.#offset = now - (this.#madeAt + performance.timeOrigin);
    this.name = name;
    this.kind = kind;
    this.#spanContext = spanContext;
    this.parentSpanContext = parent;
    this.attributes = attributes;
    this.startTime = this.#time(startTime ?? now);
    this.#processor = processor;
    this.resource = resource;
    this.instrumentationScope = scope;
  }

  spanContext(): SpanContext {
    return this.#spanContext;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttributes(attributes: Attributes): this {
    if (!this.ended) {
      addAttributes(this.attributes, attributes);
    }
    return this;
  }

  addEvent(name: string, time: TimeInput): this {
    if (!this.ended) {
      this.events.push({
        name,
        time: this.#time(time),
        attributes: NO_EVENT_ATTRIBUTES,
        droppedAttributesCount: 0,
      });
    }
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) {
      return this;
    }
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  end(time: TimeInput): void {
    if (this.ended) return;
    this.endTime = this.#time(time);
    this.duration = hrTimeDuration(this.startTime, this.endTime);
    if (this.duration[0] < 0) {
      this.endTime = [this.startTime[0], this.startTime[1]];
      this.duration = [0, 0];
    }
    this.ended = true;
    this.#processor.onEnd(this);
  }

  /**
   * The SDK's reading of a time: a `performance.now()` value (one not after now), anchored; else
   * epoch ms, a Date or an HrTime. A time before the span was made needs no clock read to tell.
   */
  #time(time: TimeInput): HrTime {
    if (typeof time === 'number') {
      return time <= this.#madeAt || time <= performance.now()
        ? anchoredHrTime(time + this.#offset)
        : millisToHrTime(time);
    }
    if (time instanceof Date) return millisToHrTime(time.getTime());
    return time;
  }
}

/** `performance.timeOrigin` as an HrTime, as the SDK's `hrTime` makes it on every call. */
const ORIGIN = millisToHrTime(performance.timeOrigin);

/**
 * The SDK's `hrTime(performanceNow)` — `addHrTimes(millisToHrTime(timeOrigin), millisToHrTime(x))`,
 * the same arithmetic to the nanosecond (a property test holds the two together) — with one array
 * made instead of three.
 */
export function anchoredHrTime(performanceNow: number): HrTime {
  const seconds = ORIGIN[0] + Math.trunc(performanceNow / 1e3);
  const nanos = ORIGIN[1] + Math.round((performanceNow % 1e3) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

/** What a span the sampler dropped (or a suppressed one) is: nothing is built for it. */
const NOT_RECORDING: RecordingSpan = Object.freeze({
  isRecording: () => false,
  setAttributes: () => undefined,
  addEvent: () => undefined,
  setStatus: () => undefined,
  end: () => undefined,
});

/**
 * The resource and scope an SDK's tracer gives lanewatch's spans, read off one span it starts and
 * never ends (so never exports): what `OwnTracer`'s spans carry, so that the exporter groups them
 * with the SDK's own. Undefined when that span does not record.
 */
export function sdkSpanIdentity(
  tracer: Pick<Tracer, 'startSpan'>,
): { resource: Resource; scope: InstrumentationScope } | undefined {
  const probe: Partial<ReadableSpan> = tracer.startSpan('lanewatch.resource', { root: true });
  const { resource, instrumentationScope } = probe;
  if (typeof resource?.attributes !== 'object' || typeof instrumentationScope?.name !== 'string') {
    return undefined;
  }
  return { resource, scope: instrumentationScope };
}
