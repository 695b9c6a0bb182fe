import { type Attributes, type Histogram, type Meter, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { CallRecord } from './call-record.ts';
import { CallTargets, type MetricAttributes } from './call-targets.ts';
import { diagnose } from './diagnosis.ts';
import {
  ATTR,
  METRIC,
  MILESTONE_EVENT,
  MILESTONE_METRIC,
  MILESTONE_SPAN_MS,
  type Outcome,
  SPAN_ATTR,
} from './names.ts';
import type { AttributeSets } from './own-meter.ts';
import type { SpanStarter } from './own-tracer.ts';

export { CallTargets };

export interface CallResult {
  readonly outcome: Outcome;
  readonly errorType: string | undefined;
}

/** The observable gauge whose callback flushes held calls; it never observes, so it never exports. */
const FLUSH_HOOK = 'lanewatch.internal.flush';

/** Bucket boundaries advice is not given: lanewatch's histograms are exponential (see `views`). */
export class CallInstruments {
  readonly timeToHeaders: Histogram;
  readonly timeToFirstChunk: Histogram;
  readonly timeToFirstOutput: Histogram;
  readonly timeToFirstText: Histogram;
  readonly duration: Histogram;
  readonly tokenUsage: Histogram;
  readonly outputTokensPerSecond: Histogram;
  /** What a point with these attributes is recorded with: themselves, or their stand-in (see `OwnMeter`). */
  readonly pointAttributes: (attributes: Attributes) => Attributes;

  /**
   * `beforeCollect` runs before every collection of `meter`'s metrics, so calls held back for
   * recording are in it: the callback of an observable gauge that never observes anything (and so is
   * never exported), which the SDK calls before it reads the histograms.
   */
  constructor(meter: Meter, beforeCollect?: () => void, sets?: AttributeSets) {
    this.pointAttributes = sets === undefined ? (attributes) => attributes : (a) => sets.standIn(a);
    if (beforeCollect !== undefined) {
      try {
        meter
          .createObservableGauge(FLUSH_HOOK, {
            description: 'Never exported: records calls lanewatch holds back before each collection.',
          })
          .addCallback(() => beforeCollect());
      } catch {
        // A meter that cannot make one: held calls still go by `flush()`, `disable()` and the timer.
      }
    }
    const seconds = (name: string, description: string) =>
      meter.createHistogram(name, { unit: 's', description });
    this.timeToHeaders = seconds(
      MILESTONE_METRIC.headers,
      'Time from dispatch (t1) to response headers (t2).',
    );
    this.timeToFirstChunk = seconds(
      MILESTONE_METRIC.first_chunk,
      'Time from dispatch (t1) to the first non-empty SSE event or NDJSON line (t3).',
    );
    this.timeToFirstOutput = seconds(
      MILESTONE_METRIC.first_output,
      'Time from dispatch (t1) to the first text, reasoning or tool-call argument delta (t4).',
    );
    this.timeToFirstText = seconds(
      MILESTONE_METRIC.first_text,
      'Time from dispatch (t1) to the first visible text delta (t5).',
    );
    this.duration = seconds(
      MILESTONE_METRIC.end,
      'Time from dispatch (t1) to the end, error or cancellation of the body (t6).',
    );
    this.tokenUsage = meter.createHistogram(METRIC.tokenUsage, {
      unit: '{token}',
      description: "Tokens per call, from the stream's own usage report or the whole answer's.",
    });
    this.outputTokensPerSecond = meter.createHistogram(METRIC.outputTokensPerSecond, {
      unit: '{token}/s',
      description: 'Output tokens divided by the time from first visible text (t5) to end (t6).',
    });
  }
}

/**
 * Records one finished call: its histograms, then its span. The attributes every point and the span
 * carry (DESIGN §2) are one frozen object per combination of values, built the first time it occurs
 * (see `CallTargets`); the span's own attributes and events are only built when its span records.
 */
export function recordCall(
  record: CallRecord,
  result: CallResult,
  instruments: CallInstruments,
  tracer: SpanStarter | undefined,
  targets: CallTargets,
): void {
  const id = record.identity;
  const t1 = record.t1;
  const end = record.endAt ?? performance.now();
  const target = targets.targetOf(id);
  const size = id.contentLength ?? (record.sentBytes > 0 ? record.sentBytes : undefined);
  const sets: MetricAttributes = targets.attributesOf(
    target,
    result.outcome,
    record.attempt,
    size,
    record.statusCode,
    result.errorType,
  );
  const { pointAttributes } = instruments;
  const point = pointAttributes(sets.call);
  // The caller's context when it dispatched the request: the measurements' context (exemplars,
  // baggage-reading views), and passed on so the SDK does not look up the active one per record.
  const context = record.parentContext;

  const { headersAt, firstChunkAt, firstOutputAt, firstTextAt, outputKind } = record;
  if (headersAt !== undefined) instruments.timeToHeaders.record((headersAt - t1) / 1000, point, context);
  if (firstChunkAt !== undefined)
    instruments.timeToFirstChunk.record((firstChunkAt - t1) / 1000, point, context);
  if (firstOutputAt !== undefined && outputKind !== undefined) {
    instruments.timeToFirstOutput.record(
      (firstOutputAt - t1) / 1000,
      pointAttributes(sets.firstOutput(outputKind)),
      context,
    );
  }
  if (firstTextAt !== undefined)
    instruments.timeToFirstText.record((firstTextAt - t1) / 1000, point, context);
  instruments.duration.record((end - t1) / 1000, point, context);
  const { inputTokens, outputTokens } = record;
  if (inputTokens !== undefined)
    instruments.tokenUsage.record(inputTokens, pointAttributes(sets.inputTokens), context);
  if (outputTokens !== undefined)
    instruments.tokenUsage.record(outputTokens, pointAttributes(sets.outputTokens), context);
  const generation = firstTextAt === undefined ? undefined : (end - firstTextAt) / 1000;
  const tokensPerSecond =
    outputTokens !== undefined && generation !== undefined && generation > 0
      ? outputTokens / generation
      : undefined;
  if (tokensPerSecond !== undefined)
    instruments.outputTokensPerSecond.record(tokensPerSecond, point, context);

  if (tracer === undefined) return;
  // The attributes of every point are known at the start, so a sampler can decide on them.
  const span = tracer.startSpan(
    target.spanName,
    { kind: SpanKind.CLIENT, startTime: t1, attributes: sets.call },
    context,
  );
  // A sampled-out span records nothing: nothing more is built for it.
  if (span.isRecording()) {
    const headers = ms(headersAt, t1);
    const firstOutput = ms(firstOutputAt, t1);
    const firstText = ms(firstTextAt, t1);
    const endMs = end - t1;
    const diagnosis =
      result.outcome === 'ok' || result.outcome === 'truncated'
        ? diagnose(headers, firstOutput, firstText, endMs)
        : undefined;
    // One literal: absent milestones are `undefined`, which the API's `Attributes` allows and an
    // SDK drops, so the span never carries a 0 for what did not happen.
    const spanAttributes: Attributes = {
      [SPAN_ATTR.chunks]: record.chunks,
      [SPAN_ATTR.serverPort]: id.endpoint.serverPort,
      [SPAN_ATTR.format]: record.format?.name,
      [ATTR.outputKind]: outputKind,
      [MILESTONE_SPAN_MS.headers]: round3(headers),
      [MILESTONE_SPAN_MS.first_chunk]: round3(ms(firstChunkAt, t1)),
      [MILESTONE_SPAN_MS.first_output]: round3(firstOutput),
      [MILESTONE_SPAN_MS.first_text]: round3(firstText),
      [MILESTONE_SPAN_MS.end]: round3(endMs),
      [SPAN_ATTR.inputTokens]: inputTokens,
      [SPAN_ATTR.outputTokens]: outputTokens,
      [SPAN_ATTR.outputTokensPerSecond]: round3(tokensPerSecond),
      [SPAN_ATTR.diagnosis]: diagnosis,
    };
    span.setAttributes(spanAttributes);
    if (headersAt !== undefined) span.addEvent(MILESTONE_EVENT.headers, headersAt);
    if (firstChunkAt !== undefined) span.addEvent(MILESTONE_EVENT.first_chunk, firstChunkAt);
    if (firstOutputAt !== undefined) span.addEvent(MILESTONE_EVENT.first_output, firstOutputAt);
    if (firstTextAt !== undefined) span.addEvent(MILESTONE_EVENT.first_text, firstTextAt);
    span.addEvent(MILESTONE_EVENT.end, end);
    if (result.outcome === 'error') {
      span.setStatus({ code: SpanStatusCode.ERROR, message: sets.call[ATTR.errorType] as string });
    }
  }
  span.end(end);
}

function ms(at: number | undefined, t1: number): number | undefined {
  return at === undefined ? undefined : at - t1;
}

function round3(v: number | undefined): number | undefined {
  return v === undefined ? undefined : Math.round(v * 1000) / 1000;
}
