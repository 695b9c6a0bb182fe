import {
  type Attributes,
  type Context,
  SamplingDecision,
  type SpanContext,
  type SpanOptions,
  TraceFlags,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { type InstrumentationScope, isTracingSuppressed } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  type IdGenerator,
  RandomIdGenerator,
  type ReadableSpan,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { addAttributes, dropInvalid, NO_LINKS, OwnSpan, type RecordingSpan } from './own-span.ts';

export { anchoredHrTime, type RecordingSpan } from './own-span.ts';

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
