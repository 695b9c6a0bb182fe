import {
  type Attributes,
  type AttributeValue,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
} from '@opentelemetry/api';
import {
  hrTimeDuration,
  type InstrumentationScope,
  isAttributeValue,
  millisToHrTime,
} from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace';

/** What lanewatch does with a span it records: the part of the API's `Span` that `recordCall` uses. */
export interface RecordingSpan {
  isRecording(): boolean;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, time: TimeInput): unknown;
  setStatus(status: SpanStatus): unknown;
  end(time: TimeInput): void;
}

/** No span of lanewatch's has links; shared, so frozen (span processors and samplers only read it). */
export const NO_LINKS = Object.freeze([]) as unknown as Link[];
const NO_EVENT_ATTRIBUTES: Attributes = Object.freeze({});

/** The SDK's rule for a span's attributes: an undefined value, an empty key or one that is no attribute value is left out. */
function kept(key: string, value: unknown): value is AttributeValue {
  return value !== undefined && key.length > 0 && isAttributeValue(value);
}

export function addAttributes(to: Attributes, from: Attributes | undefined): void {
  if (from === undefined) return;
  for (const key in from) {
    const value = from[key];
    if (kept(key, value)) to[key] = value;
  }
}

/** The same rule over an object copied whole (a copy of the start attributes): what it breaks is deleted. */
export function dropInvalid(attributes: Attributes): void {
  for (const key in attributes) if (!kept(key, attributes[key])) delete attributes[key];
}

/**
 * One recording span, readable by span processors and exporters once it has ended.
 *
 * Compact while it waits: a batch span processor holds a finished span until 512 have ended (or
 * 5 s have passed), up to 2,048 of them. So what it holds until read is small — the start
 * attributes and the later ones as given, the events' names and instants in two arrays of their
 * size, the instants as numbers — and the `attributes`, `events` and times an exporter reads are
 * built the first time they are read, once, and kept: a third of the SDK span's bytes while it
 * waits (`bench/span-memory.ts`). It changed no CPU measurably, nor what reaches the old
 * generation per request (see bench/RESULTS.md).
 */
export class OwnSpan implements RecordingSpan, ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly links: Link[] = NO_LINKS;
  status: SpanStatus = UNSET;
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
  /** The start and end instants as `#time` reads them; their HrTimes, and the duration, once read. */
  readonly #start: number | HrTime;
  #end: number | HrTime | undefined;
  #times: { start: HrTime; end: HrTime; duration: HrTime } | undefined;
  /** The start attributes (valid; a copy of the caller's), then each `setAttributes` argument. */
  readonly #startAttributes: Attributes;
  #laterAttributes: Attributes | Attributes[] | undefined;
  #attributes: Attributes | undefined;
  #eventNames: string[] = [];
  /** Each event's instant, as `#time` reads it. */
  #eventTimes: Array<number | HrTime> = [];
  #events: TimedEvent[] | undefined;

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
    this.#startAttributes = attributes;
    this.#start = this.#time(startTime ?? now);
    this.#processor = processor;
    this.resource = resource;
    this.instrumentationScope = scope;
  }

  /** Every attribute: the start set, then each later set's valid values in order, as the SDK keeps them. */
  get attributes(): Attributes {
    if (this.#attributes !== undefined) return this.#attributes;
    const attributes: Attributes = { ...this.#startAttributes };
    const later = this.#laterAttributes;
    if (Array.isArray(later)) for (const set of later) addAttributes(attributes, set);
    else addAttributes(attributes, later);
    this.#attributes = attributes;
    this.#laterAttributes = undefined;
    return attributes;
  }

  get events(): TimedEvent[] {
    if (this.#events !== undefined) return this.#events;
    const events: TimedEvent[] = this.#eventNames.map((name, i) => ({
      name,
      time: hrTimeOf(this.#eventTimes[i] as number | HrTime),
      attributes: NO_EVENT_ATTRIBUTES,
      droppedAttributesCount: 0,
    }));
    // Kept only once the span has ended: nothing can be added after.
    if (this.ended) {
      this.#events = events;
      this.#eventNames = NO_NAMES;
      this.#eventTimes = NO_TIMES;
    }
    return events;
  }

  get startTime(): HrTime {
    return this.#timesRead()?.start ?? hrTimeOf(this.#start);
  }

  /** `[0, 0]` until the span has ended, as the SDK's. */
  get endTime(): HrTime {
    return this.#timesRead()?.end ?? [0, 0];
  }

  /** `[-1, -1]` until the span has ended, as the SDK's. */
  get duration(): HrTime {
    return this.#timesRead()?.duration ?? [-1, -1];
  }

  /** The SDK's end arithmetic, once the span has ended: an end before the start is the start. */
  #timesRead(): { start: HrTime; end: HrTime; duration: HrTime } | undefined {
    if (this.#times !== undefined || this.#end === undefined) return this.#times;
    const start = hrTimeOf(this.#start);
    let end = hrTimeOf(this.#end);
    let duration = hrTimeDuration(start, end);
    if (duration[0] < 0) {
      end = [start[0], start[1]];
      duration = [0, 0];
    }
    this.#times = { start, end, duration };
    return this.#times;
  }

  spanContext(): SpanContext {
    return this.#spanContext;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** Keeps `attributes` as given (its valid values are read when the span is): never change it after. */
  setAttributes(attributes: Attributes): this {
    if (this.ended) return this;
    const later = this.#laterAttributes;
    if (this.#attributes !== undefined) addAttributes(this.#attributes, attributes);
    else if (later === undefined) this.#laterAttributes = attributes;
    else if (Array.isArray(later)) later.push(attributes);
    else this.#laterAttributes = [later, attributes];
    return this;
  }

  addEvent(name: string, time: TimeInput): this {
    if (!this.ended) {
      this.#eventNames.push(name);
      this.#eventTimes.push(this.#time(time));
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
    this.#end = this.#time(time);
    this.ended = true;
    // Arrays that grew by `push` keep room for more: copies of their size wait for the export.
    if (this.#eventNames.length > 0) {
      this.#eventNames = this.#eventNames.slice();
      this.#eventTimes = this.#eventTimes.slice();
    }
    this.#processor.onEnd(this);
  }

  /**
   * The SDK's reading of a time, up to the HrTime: a `performance.now()` value (one not after now)
   * is kept anchored, as a number `anchoredHrTime` turns into the HrTime; epoch ms, a Date or an
   * HrTime become the HrTime at once. A time before the span was made needs no clock read to tell.
   */
  #time(time: TimeInput): number | HrTime {
    if (typeof time === 'number') {
      return time <= this.#madeAt || time <= performance.now() ? time + this.#offset : millisToHrTime(time);
    }
    if (time instanceof Date) return millisToHrTime(time.getTime());
    return time;
  }
}

const NO_NAMES: string[] = [];
const NO_TIMES: number[] = [];

/** A status nobody set; shared (span processors and exporters only read it). */
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

function hrTimeOf(time: number | HrTime): HrTime {
  return typeof time === 'number' ? anchoredHrTime(time) : time;
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
