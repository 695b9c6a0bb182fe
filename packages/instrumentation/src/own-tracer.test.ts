import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Sampler,
  SamplingDecision,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { hrTime, suppressTracing, TraceState } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  type ReadableSpan,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { INSTRUMENTATION_SCOPE } from './names.ts';
import { anchoredHrTime, OwnTracer, type SpanStarter, sdkSpanIdentity } from './own-tracer.ts';
import { VERSION } from './version.ts';

/** The SDK's tracer and an OwnTracer over the same resource, sampler and kind of processor. */
function both(sampler: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })) {
  const resource = resourceFromAttributes({ 'service.name': 'own-tracer-test' });
  const sdkExporter = new InMemorySpanExporter();
  const sdkProcessor = new SimpleSpanProcessor({ exporter: sdkExporter });
  const provider = new TracerProvider({ resource, sampler, spanProcessors: [sdkProcessor] });
  const sdk = provider.getTracer(INSTRUMENTATION_SCOPE, VERSION);
  // Read off a tracer that always records, over the same resource: the probe asks its sampler too.
  const identity = sdkSpanIdentity(
    new TracerProvider({ resource }).getTracer(INSTRUMENTATION_SCOPE, VERSION),
  );
  assert.ok(identity, 'the SDK tracer shows its resource and scope');
  const ownExporter = new InMemorySpanExporter();
  const ownProcessor = new SimpleSpanProcessor({ exporter: ownExporter });
  const own = new OwnTracer({ spanProcessor: ownProcessor, sampler, ...identity });
  return {
    sdk,
    own,
    /** What each exported, once their exports are done. */
    spans: async () => {
      await Promise.all([sdkProcessor.forceFlush(), ownProcessor.forceFlush()]);
      return { sdk: sdkExporter.getFinishedSpans(), own: ownExporter.getFinishedSpans() };
    },
  };
}

const CALL: Attributes = Object.freeze({
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'lanewatch.lane': 'openai/gpt-test',
  'lanewatch.attempt': '1',
  'http.response.status_code': 200,
});

/** What `recordCall` does with a tracer, at the same `performance.now()` times for both: all past, as a finished call's. */
function recordOne(tracer: SpanStarter, context: Context, t1: number, error = false): void {
  const span = tracer.startSpan(
    'chat gpt-test',
    { kind: SpanKind.CLIENT, startTime: t1, attributes: CALL },
    context,
  );
  if (span.isRecording()) {
    span.setAttributes({
      'lanewatch.chunks': 7,
      'lanewatch.first_text_ms': 12.345,
      'lanewatch.output.kind': undefined,
      'lanewatch.diagnosis': 'generation_slow',
    });
    span.addEvent('lanewatch.headers', t1 + 1.5);
    span.addEvent('lanewatch.first_text', t1 + 12.345);
    span.addEvent('lanewatch.end', t1 + 40.25);
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'http_5xx' });
  }
  span.end(t1 + 40.25);
}

const nanos = ([s, ns]: readonly [number, number]) => BigInt(s) * 1_000_000_000n + BigInt(ns);

/** Everything an exporter reads of a span but its ids; times relative to its start. */
function shape(span: ReadableSpan) {
  const start = nanos(span.startTime);
  return {
    name: span.name,
    kind: span.kind,
    attributes: span.attributes,
    status: span.status,
    events: span.events.map((e) => ({ name: e.name, at: nanos(e.time) - start, attributes: e.attributes })),
    durationNs: nanos(span.duration),
    endAfterStartNs: nanos(span.endTime) - start,
    sampled: (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0,
    hasParent: span.parentSpanContext !== undefined,
    resource: span.resource.attributes,
    scope: span.instrumentationScope,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
    links: span.links,
  };
}

/** Nanoseconds within which two anchorings of one `performance.now()` time agree (the SDK's float arithmetic). */
const SAME_TIME_NS = 2_000n;

function assertSameSpans(sdk: ReadableSpan[], own: ReadableSpan[]): void {
  assert.equal(own.length, sdk.length, 'as many spans');
  for (const [i, ownSpan] of own.entries()) {
    const sdkSpan = sdk[i] as ReadableSpan;
    const a = shape(sdkSpan);
    const b = shape(ownSpan);
    for (const [j, event] of b.events.entries()) {
      const diff = event.at - (a.events[j]?.at ?? 0n);
      assert.ok(
        diff <= SAME_TIME_NS && diff >= -SAME_TIME_NS,
        `event ${event.name} at the same time (${diff} ns apart)`,
      );
    }
    const diff = b.durationNs - a.durationNs;
    assert.ok(diff <= SAME_TIME_NS && diff >= -SAME_TIME_NS, 'the same duration');
    assert.deepEqual(
      { ...b, events: b.events.map((e) => e.name), durationNs: 0, endAfterStartNs: 0 },
      { ...a, events: a.events.map((e) => e.name), durationNs: 0, endAfterStartNs: 0 },
    );
    // Both anchor performance.now() to the wall clock as the SDK does: the same instant, to the ms.
    const startDiff = nanos(ownSpan.startTime) - nanos(sdkSpan.startTime);
    assert.ok(startDiff < 2_000_000n && startDiff > -2_000_000n, 'started at the same wall-clock time');
  }
}

describe('OwnTracer: the spans the SDK would make', () => {
  it('a root call: the same name, kind, attributes (undefined left out), events, duration, resource and scope', async () => {
    const { sdk, own, spans } = both();
    const t1 = performance.now() - 100;
    recordOne(sdk, ROOT_CONTEXT, t1);
    recordOne(own, ROOT_CONTEXT, t1);
    const got = await spans();
    assertSameSpans(got.sdk, got.own);
    const [span] = got.own;
    assert.ok(span);
    assert.equal(span.attributes['lanewatch.diagnosis'], 'generation_slow');
    assert.ok(!('lanewatch.output.kind' in span.attributes), 'an undefined value is not an attribute');
    assert.equal(span.resource.attributes['service.name'], 'own-tracer-test');
    assert.deepEqual(span.instrumentationScope, {
      name: INSTRUMENTATION_SCOPE,
      version: VERSION,
      schemaUrl: undefined,
    });
    assert.match(span.spanContext().traceId, /^[0-9a-f]{32}$/);
    assert.match(span.spanContext().spanId, /^[0-9a-f]{16}$/);
    assert.equal(span.duration[0] * 1e3 + span.duration[1] / 1e6, 40.25);
  });

  it("an error status keeps its message; the call's caller span is the parent, with its trace and trace state", async () => {
    const { sdk, own, spans } = both();
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      traceState: new TraceState('vendor=value'),
      isRemote: true,
    });
    const t1 = performance.now() - 100;
    recordOne(sdk, parent, t1, true);
    recordOne(own, parent, t1, true);
    const got = await spans();
    assertSameSpans(got.sdk, got.own);
    const [span] = got.own;
    assert.ok(span);
    assert.deepEqual(span.status, { code: SpanStatusCode.ERROR, message: 'http_5xx' });
    assert.equal(span.spanContext().traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(span.parentSpanContext?.spanId, 'b7ad6b7169203331');
    assert.equal(span.spanContext().traceState?.serialize(), 'vendor=value');
  });

  it('nothing under a parent that was not sampled, a sampler that drops it, or suppressed tracing', async () => {
    const unsampled = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.NONE,
    });
    for (const [context, sampler] of [
      [unsampled, undefined],
      [ROOT_CONTEXT, new TraceIdRatioBasedSampler(0)],
      [suppressTracing(ROOT_CONTEXT), undefined],
    ] as const) {
      const { sdk, own, spans } = both(sampler);
      recordOne(sdk, context, performance.now() - 100);
      recordOne(own, context, performance.now() - 100);
      const got = await spans();
      assert.equal(got.sdk.length, 0, 'the SDK records none');
      assert.equal(got.own.length, 0, 'nor does OwnTracer');
    }
  });

  it("a sampler's own attributes, and its record-only decision (recorded, never exported), as the SDK keeps them", async () => {
    const decisions = [SamplingDecision.RECORD_AND_SAMPLED, SamplingDecision.RECORD];
    for (const decision of decisions) {
      const sampler: Sampler = {
        shouldSample: (_c, _t, _n, _k, attributes) => {
          assert.equal(attributes['lanewatch.lane'], 'openai/gpt-test', 'the sampler sees the call');
          return { decision, attributes: { 'sampler.rule': 'llm' } };
        },
        toString: () => 'test',
      };
      const { sdk, own, spans } = both(sampler);
      const t1 = performance.now() - 100;
      recordOne(sdk, ROOT_CONTEXT, t1);
      recordOne(own, ROOT_CONTEXT, t1);
      const got = await spans();
      assertSameSpans(got.sdk, got.own);
      const expected = decision === SamplingDecision.RECORD ? 0 : 1;
      assert.equal(got.own.length, expected, `decision ${decision}`);
      if (expected === 1) assert.equal(got.own[0]?.attributes['sampler.rule'], 'llm');
    }
  });

  it('a span is changed no more after it ended, and ends once', async () => {
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const own = new OwnTracer({
      spanProcessor: processor,
      sampler: new AlwaysOnSampler(),
      resource: resourceFromAttributes({}),
      scope: { name: INSTRUMENTATION_SCOPE, version: VERSION },
    });
    const t1 = performance.now() - 5;
    const span = own.startSpan('x', { startTime: t1 }, ROOT_CONTEXT);
    span.end(t1 + 1);
    assert.equal(span.isRecording(), false);
    span.setAttributes({ late: 1 });
    span.addEvent('late', t1 + 2);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(t1 + 3);
    await processor.forceFlush();
    const [done] = exporter.getFinishedSpans();
    assert.equal(exporter.getFinishedSpans().length, 1, 'exported once');
    assert.ok(done);
    assert.deepEqual(done.attributes, {});
    assert.deepEqual(done.events, []);
    assert.equal(done.status.code, SpanStatusCode.UNSET);
  });
});

describe('OwnTracer: a span waiting for its export', () => {
  /** An OwnTracer whose processor keeps every span that ends; `onStart` sees each as it starts. */
  function collecting(onStart: (span: ReadableSpan) => void = () => {}) {
    const read: ReadableSpan[] = [];
    const own = new OwnTracer({
      spanProcessor: {
        onStart: (span) => onStart(span as unknown as ReadableSpan),
        onEnd: (span) => void read.push(span),
        forceFlush: async () => {},
        shutdown: async () => {},
      },
      sampler: new AlwaysOnSampler(),
      resource: resourceFromAttributes({}),
      scope: { name: INSTRUMENTATION_SCOPE, version: VERSION },
    });
    return { own, read };
  }

  /** The OTLP/JSON request the SDK's OTLP exporters send for `spans`, ids and instants taken out. */
  function sent(spans: ReadableSpan[]): unknown {
    const bytes = JsonTraceSerializer.serializeRequest(spans);
    assert.ok(bytes, 'the serializer made a request');
    const request = JSON.parse(new TextDecoder().decode(bytes)) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>;
    };
    for (const resourceSpans of request.resourceSpans) {
      for (const scopeSpans of resourceSpans.scopeSpans) {
        for (const span of scopeSpans.spans) {
          for (const key of ['traceId', 'spanId', 'startTimeUnixNano', 'endTimeUnixNano']) delete span[key];
          span.events = (span.events as Array<Record<string, unknown>>).map(({ timeUnixNano: _, ...e }) => e);
        }
      }
    }
    return request;
  }

  it('sends what the SDK sends for the same call, through the OTLP serializer', async () => {
    const { sdk, own, spans } = both();
    const t1 = performance.now() - 100;
    recordOne(sdk, ROOT_CONTEXT, t1, true);
    recordOne(own, ROOT_CONTEXT, t1, true);
    const got = await spans();
    assert.deepEqual(sent(got.own), sent(got.sdk));
    const request = sent(got.own) as {
      resourceSpans: [{ scopeSpans: [{ spans: [{ attributes: unknown[] }] }] }];
    };
    assert.equal(
      request.resourceSpans[0].scopeSpans[0].spans[0].attributes.length,
      Object.keys(CALL).length + 3,
      'every attribute',
    );
  });

  it('builds its attributes, events and times once, when first read, and reads the same after', () => {
    const seenAtStart: Attributes[] = [];
    // A processor may read a span as it starts: what it reads then is the start, and stays so.
    const { own, read } = collecting((span) => void seenAtStart.push({ ...span.attributes }));
    const t1 = performance.now() - 50;
    const span = own.startSpan(
      'x',
      { startTime: t1, attributes: { a: 1, skipped: undefined } },
      ROOT_CONTEXT,
    );
    span.setAttributes({ b: 2, a: 3 });
    span.setAttributes({ c: 'x', bad: { nested: true } as never });
    span.addEvent('one', t1 + 1);
    span.addEvent('two', t1 + 2);
    span.end(t1 + 3);
    const [done] = read;
    assert.ok(done);
    assert.deepEqual(seenAtStart, [{ a: 1 }]);
    assert.deepEqual(done.attributes, { a: 3, b: 2, c: 'x' }, 'later sets in order, invalid values left out');
    assert.equal(done.attributes, done.attributes, 'built once');
    assert.deepEqual(
      done.events.map((e) => e.name),
      ['one', 'two'],
    );
    assert.equal(done.events, done.events, 'built once');
    assert.equal(done.startTime, done.startTime, 'built once');
    assert.deepEqual(done.duration, [0, 3_000_000]);
    assert.equal(nanos(done.endTime) - nanos(done.startTime), 3_000_000n);
    assert.equal(nanos(done.events[1]?.time ?? [0, 0]) - nanos(done.startTime), 2_000_000n);
  });

  it('an end before its start is the start, as the SDK makes it', () => {
    const { own, read } = collecting();
    const t1 = performance.now() - 50;
    const span = own.startSpan('x', { startTime: t1 }, ROOT_CONTEXT);
    assert.deepEqual((span as unknown as ReadableSpan).endTime, [0, 0], 'no end before it ended');
    assert.deepEqual((span as unknown as ReadableSpan).duration, [-1, -1]);
    span.end(t1 - 10);
    const [done] = read;
    assert.ok(done);
    assert.deepEqual(done.duration, [0, 0]);
    assert.deepEqual(done.endTime, done.startTime);
  });
});

describe('anchoredHrTime', () => {
  it("is the SDK's hrTime to the nanosecond, for any performance.now() value and anchor", () => {
    fc.assert(
      fc.property(fc.double({ min: -5_000, max: 1e10, noNaN: true }), (performanceNow) => {
        assert.deepEqual(anchoredHrTime(performanceNow), hrTime(performanceNow));
      }),
      { numRuns: 20_000 },
    );
    for (const ms of [0, 999.9999999, 1000, 1e3 - 1e-7, performance.now(), -0.5]) {
      assert.deepEqual(anchoredHrTime(ms), hrTime(ms), String(ms));
    }
  });
});
