import {
  type Attributes,
  type Histogram,
  type Meter,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import { BoundedValues } from './bounded-values.ts';
import type { CallRecord } from './call-record.ts';
import { diagnose } from './diagnosis.ts';
import {
  ATTR,
  METRIC,
  MILESTONE_EVENT,
  MILESTONE_METRIC,
  MILESTONE_SPAN_MS,
  type Outcome,
  SPAN_ATTR,
  sizeClassOf,
} from './names.ts';

export interface CallResult {
  readonly outcome: Outcome;
  readonly errorType: string | undefined;
  /** The attempt number from the caller's context, if it set one. */
  readonly contextAttempt: number | undefined;
}

/** Bucket boundaries advice is not given: lanewatch's histograms are exponential (see `views`). */
export class CallInstruments {
  readonly timeToHeaders: Histogram;
  readonly timeToFirstChunk: Histogram;
  readonly timeToFirstOutput: Histogram;
  readonly timeToFirstText: Histogram;
  readonly duration: Histogram;
  readonly tokenUsage: Histogram;
  readonly outputTokensPerSecond: Histogram;

  constructor(meter: Meter) {
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
      description: "Tokens per call, from the stream's own usage report.",
    });
    this.outputTokensPerSecond = meter.createHistogram(METRIC.outputTokensPerSecond, {
      unit: '{token}/s',
      description: 'Output tokens divided by the time from first visible text (t5) to end (t6).',
    });
  }
}

/** Caps per attribute; one set per instrumentation instance. */
export class AttributeCaps {
  readonly lane: BoundedValues;
  readonly model: BoundedValues;
  readonly server: BoundedValues;
  readonly provider: BoundedValues;
  readonly errorType: BoundedValues;

  constructor(cap: number) {
    this.lane = new BoundedValues(cap);
    this.model = new BoundedValues(cap);
    this.server = new BoundedValues(cap);
    this.provider = new BoundedValues(32);
    this.errorType = new BoundedValues(64);
  }
}

const ms = (at: number | undefined, t1: number) => (at === undefined ? undefined : at - t1);

/** Records one finished call: its histograms, then its span, both with the same attributes. */
export function recordCall(
  record: CallRecord,
  result: CallResult,
  instruments: CallInstruments,
  tracer: Tracer | undefined,
  caps: AttributeCaps,
): void {
  const id = record.identity;
  const t1 = record.t1;
  const end = record.endAt ?? performance.now();
  const model = id.model === undefined ? undefined : caps.model.fold(id.model);
  const lane = caps.lane.fold(id.configuredLane ?? `${id.provider}/${model ?? 'unknown'}`);
  const attempt = result.contextAttempt ?? id.headerAttempt ?? 1;
  const size = id.contentLength ?? (record.sentBytes > 0 ? record.sentBytes : undefined);

  const attributes: Attributes = {
    [ATTR.operationName]: id.operation,
    [ATTR.providerName]: caps.provider.fold(id.provider),
    [ATTR.serverAddress]: caps.server.fold(id.serverAddress),
    [ATTR.lane]: lane,
    [ATTR.outcome]: result.outcome,
    [ATTR.attempt]: attempt >= 4 ? '4+' : String(attempt),
  };
  if (model !== undefined) attributes[ATTR.requestModel] = model;
  if (size !== undefined) attributes[ATTR.sizeClass] = sizeClassOf(size);
  if (record.statusCode !== undefined) attributes[ATTR.statusCode] = record.statusCode;
  if (result.errorType !== undefined) attributes[ATTR.errorType] = errorTypeValue(result.errorType, caps);

  const at = {
    headers: record.headersAt,
    first_chunk: record.firstChunkAt,
    first_output: record.firstOutputAt,
    first_text: record.firstTextAt,
    end,
  } as const;

  const seconds = (instant: number | undefined) =>
    instant === undefined ? undefined : (instant - t1) / 1000;
  const recordIf = (h: Histogram, instant: number | undefined, attrs: Attributes = attributes) => {
    const v = seconds(instant);
    if (v !== undefined) h.record(v, attrs);
  };
  recordIf(instruments.timeToHeaders, at.headers);
  recordIf(instruments.timeToFirstChunk, at.first_chunk);
  if (record.outputKind !== undefined) {
    recordIf(instruments.timeToFirstOutput, at.first_output, {
      ...attributes,
      [ATTR.outputKind]: record.outputKind,
    });
  }
  recordIf(instruments.timeToFirstText, at.first_text);
  recordIf(instruments.duration, end);
  if (record.inputTokens !== undefined) {
    instruments.tokenUsage.record(record.inputTokens, { ...attributes, [ATTR.tokenType]: 'input' });
  }
  if (record.outputTokens !== undefined) {
    instruments.tokenUsage.record(record.outputTokens, { ...attributes, [ATTR.tokenType]: 'output' });
  }
  const generation = at.first_text === undefined ? undefined : (end - at.first_text) / 1000;
  const tokensPerSecond =
    record.outputTokens !== undefined && generation !== undefined && generation > 0
      ? record.outputTokens / generation
      : undefined;
  if (tokensPerSecond !== undefined) instruments.outputTokensPerSecond.record(tokensPerSecond, attributes);

  if (tracer === undefined) return;
  const spanAttributes: Attributes = { ...attributes, [SPAN_ATTR.chunks]: record.chunks };
  if (id.serverPort !== undefined) spanAttributes['server.port'] = id.serverPort;
  if (record.format !== undefined) spanAttributes[SPAN_ATTR.format] = record.format.name;
  if (record.outputKind !== undefined) spanAttributes[ATTR.outputKind] = record.outputKind;
  for (const m of ['headers', 'first_chunk', 'first_output', 'first_text', 'end'] as const) {
    const v = ms(at[m], t1);
    if (v !== undefined) spanAttributes[MILESTONE_SPAN_MS[m]] = round3(v);
  }
  if (record.inputTokens !== undefined) spanAttributes[SPAN_ATTR.inputTokens] = record.inputTokens;
  if (record.outputTokens !== undefined) spanAttributes[SPAN_ATTR.outputTokens] = record.outputTokens;
  if (tokensPerSecond !== undefined)
    spanAttributes[SPAN_ATTR.outputTokensPerSecond] = round3(tokensPerSecond);
  const diagnosis = diagnose({
    headers: ms(at.headers, t1),
    firstOutput: ms(at.first_output, t1),
    firstText: ms(at.first_text, t1),
    end: ms(end, t1),
  });
  if (diagnosis !== undefined && (result.outcome === 'ok' || result.outcome === 'truncated')) {
    spanAttributes[SPAN_ATTR.diagnosis] = diagnosis;
  }

  const span = tracer.startSpan(
    model === undefined ? id.operation : `${id.operation} ${model}`,
    { kind: SpanKind.CLIENT, startTime: t1, attributes: spanAttributes },
    record.parentContext,
  );
  for (const m of ['headers', 'first_chunk', 'first_output', 'first_text', 'end'] as const) {
    const instant = at[m];
    if (instant !== undefined) span.addEvent(MILESTONE_EVENT[m], instant);
  }
  if (result.outcome === 'error')
    span.setStatus({ code: SpanStatusCode.ERROR, message: attributes[ATTR.errorType] as string });
  span.end(end);
}

function errorTypeValue(type: string, caps: AttributeCaps): string {
  // `stream_error:<provider type>` is already sanitized by the detector; the cap bounds it.
  return caps.errorType.fold(type);
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}
