// The floor any instrumentation recording lanewatch's signals pays OpenTelemetry for one call of the
// benchmark: the same recording CLIENT span (the §2 attributes at its start, the 13 span-only
// attributes, the five milestone events) and the same eight histogram records (five milestones,
// input and output tokens, tokens per second), with the same attribute sets — made directly, with
// no detection, no identification and no bookkeeping.
import { type Attributes, type Context, context, type Meter, SpanKind } from '@opentelemetry/api';
import {
  ATTR,
  METRIC,
  MILESTONE_EVENT,
  MILESTONE_METRIC,
  MILESTONE_SPAN_MS,
  SPAN_ATTR,
} from '../src/names.ts';
import type { SpanStarter } from '../src/own-tracer.ts';

export class SdkFloor {
  readonly #tracer: SpanStarter;
  readonly #milestones;
  readonly #tokenUsage;
  readonly #tokensPerSecond;
  readonly #call: Attributes;
  readonly #point: Attributes;
  readonly #firstOutput: Attributes;
  readonly #inputTokens: Attributes;
  readonly #outputTokens: Attributes;
  #calls = 0;

  /**
   * `meter` should have lanewatch's scope name, so the same (exponential) views apply. With
   * `pointAttributes`, points are recorded with what it gives for each set (`register`'s own meter
   * records stand-ins: see `OwnMeter`); the span always gets the whole set.
   */
  constructor(tracer: SpanStarter, meter: Meter, pointAttributes: (a: Attributes) => Attributes = (a) => a) {
    this.#tracer = tracer;
    this.#milestones = Object.values(MILESTONE_METRIC).map((name) =>
      meter.createHistogram(`floor.${name}`, { unit: 's' }),
    );
    this.#tokenUsage = meter.createHistogram(`floor.${METRIC.tokenUsage}`, { unit: '{token}' });
    this.#tokensPerSecond = meter.createHistogram(`floor.${METRIC.outputTokensPerSecond}`, {
      unit: '{token}/s',
    });
    this.#call = Object.freeze({
      [ATTR.operationName]: 'chat',
      [ATTR.providerName]: 'openai',
      [ATTR.serverAddress]: '127.0.0.1',
      [ATTR.lane]: 'openai/gpt-bench',
      [ATTR.outcome]: 'ok',
      [ATTR.attempt]: '1',
      [ATTR.requestModel]: 'gpt-bench',
      [ATTR.sizeClass]: 'xs',
      [ATTR.statusCode]: 200,
    });
    this.#firstOutput = pointAttributes(Object.freeze({ ...this.#call, [ATTR.outputKind]: 'text' }));
    this.#inputTokens = pointAttributes(Object.freeze({ ...this.#call, [ATTR.tokenType]: 'input' }));
    this.#outputTokens = pointAttributes(Object.freeze({ ...this.#call, [ATTR.tokenType]: 'output' }));
    this.#point = pointAttributes(this.#call);
  }

  /** One call's signals; instants spread over the last few milliseconds, as a real call's are. */
  record(parent: Context = context.active()): void {
    this.#calls += 1;
    const i = this.#calls;
    const end = performance.now();
    const t1 = end - 4 - (i % 7) / 10;
    const at = [t1 + 0.9, t1 + 1.1, t1 + 1.2, t1 + 1.2, end];
    for (const [k, histogram] of this.#milestones.entries()) {
      histogram.record(((at[k] as number) - t1) / 1000, k === 2 ? this.#firstOutput : this.#point, parent);
    }
    this.#tokenUsage.record(20, this.#inputTokens, parent);
    this.#tokenUsage.record(47, this.#outputTokens, parent);
    this.#tokensPerSecond.record(47 / ((end - (at[3] as number)) / 1000), this.#point, parent);
    const span = this.#tracer.startSpan(
      'chat gpt-bench',
      { kind: SpanKind.CLIENT, startTime: t1, attributes: this.#call },
      parent,
    );
    if (span.isRecording()) {
      span.setAttributes({
        [SPAN_ATTR.chunks]: 50,
        [SPAN_ATTR.serverPort]: 8000,
        [SPAN_ATTR.format]: 'openai_chat',
        [ATTR.outputKind]: 'text',
        [MILESTONE_SPAN_MS.headers]: 0.9,
        [MILESTONE_SPAN_MS.first_chunk]: 1.1,
        [MILESTONE_SPAN_MS.first_output]: 1.2,
        [MILESTONE_SPAN_MS.first_text]: 1.2,
        [MILESTONE_SPAN_MS.end]: end - t1,
        [SPAN_ATTR.inputTokens]: 20,
        [SPAN_ATTR.outputTokens]: 47,
        [SPAN_ATTR.outputTokensPerSecond]: 47 / ((end - (at[3] as number)) / 1000),
        [SPAN_ATTR.diagnosis]: 'generation_slow',
      });
      for (const [k, name] of Object.values(MILESTONE_EVENT).entries()) span.addEvent(name, at[k] as number);
    }
    span.end(end);
  }
}
