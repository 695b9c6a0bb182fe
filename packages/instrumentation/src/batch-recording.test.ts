// `batchRecording`: finished calls are held and handed to the SDK together. What a user must be able
// to rely on: every held call is recorded — by the next metric collection, by `flush()`, by
// `disable()`, or 50 ms after it ended at the latest — with the instants measured when they happened.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { context, trace } from '@opentelemetry/api';
import {
  type Harness,
  pointsOf,
  type ScriptedServer,
  sse,
  startHarness,
  startScriptedServer,
  waitFor,
} from '../test/harness.ts';
import { MILESTONE_EVENT, MILESTONE_METRIC } from './names.ts';

function chat() {
  const chunk = (delta: object) => sse({ model: 'gpt-test', choices: [{ index: 0, delta }] });
  return {
    headersAt: 1,
    pieces: [
      { at: 2, bytes: chunk({ role: 'assistant' }) },
      { at: 3, bytes: chunk({ content: 'hi' }) },
      { at: 4, bytes: 'data: [DONE]\n\n' },
    ],
  };
}

const body = JSON.stringify({ model: 'gpt-test', stream: true, messages: [] });

describe('batchRecording', () => {
  let h: Harness;
  let server: ScriptedServer;

  before(async () => {
    h = startHarness({ batchRecording: true });
    server = await startScriptedServer(() => chat());
  });
  after(async () => {
    await server.close();
    await h.shutdown();
  });
  beforeEach(async () => {
    await h.reset();
  });

  /** One streamed call, read to its end; returns when the application had the whole body. */
  async function call(): Promise<void> {
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
    await res.text();
  }

  it('holds a finished call, then flush() records it with the instants measured when they happened', async (t) => {
    const began = performance.now();
    await call();
    const bodyRead = performance.now();
    // The call is held until 50 ms after it ended at the latest; it ended after `began`.
    if (performance.now() - began < 50) {
      assert.equal(h.finishedSpans().length, 0, 'the span is held, not yet handed to the SDK');
    } else t.diagnostic('the machine took 50 ms over the call: its timer may have recorded it already');
    await sleep(20);
    h.instrumentation.flush();
    const [span, ...more] = h.finishedSpans();
    assert.ok(span !== undefined && more.length === 0, 'exactly one span after flush()');
    // Start and end go through the same clock anchor, so their difference is on the monotonic clock
    // the test reads. Recorded at the flush, the span would last at least 20 ms longer than the call.
    const durationMs = span.duration[0] * 1000 + span.duration[1] / 1e6;
    const callMs = bodyRead - began;
    assert.ok(durationMs <= callMs, `the span ends when the body ended (${durationMs} vs ${callMs} ms)`);
    const events = span.events.map((e) => e.name);
    assert.ok(events.includes(MILESTONE_EVENT.first_text) && events.includes(MILESTONE_EVENT.end));
  });

  it('a metric collection records the held calls first: none is missing from it', async () => {
    await call();
    await call();
    const collected = await h.collect();
    const [duration] = pointsOf(collected, MILESTONE_METRIC.end);
    assert.equal((duration?.value as { count: number } | undefined)?.count, 2, 'both calls counted');
    assert.equal(h.finishedSpans().length, 2, 'and their spans recorded');
  });

  it('records a held call by itself 50 ms after it ended', async () => {
    await call();
    // No flush, no collection, no further call: only the timer can record it.
    await waitFor(() => h.finishedSpans().length > 0);
    assert.equal(h.finishedSpans().length, 1);
  });

  it('a held call, recorded later by the timer, is still a child of the span active where it was made', async () => {
    const job = h.tracerProvider.getTracer('app').startSpan('app.job');
    await context.with(trace.setSpan(context.active(), job), call);
    await waitFor(() => h.finishedSpans().length > 0); // recorded by the timer, outside the job's context
    job.end();
    const [span] = h.finishedSpans().filter((s) => s.name !== 'app.job');
    assert.equal(span?.spanContext().traceId, job.spanContext().traceId);
    assert.equal(span?.parentSpanContext?.spanId, job.spanContext().spanId);
  });

  it('disable() records the held calls', async () => {
    await call();
    h.instrumentation.disable();
    try {
      assert.equal(h.finishedSpans().length, 1);
    } finally {
      h.instrumentation.enable();
    }
  });
});
