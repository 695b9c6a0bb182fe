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
  async function call(): Promise<number> {
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
    await res.text();
    return performance.timeOrigin + performance.now();
  }

  it('holds a finished call, then flush() records it with the instants measured when they happened', async () => {
    const bodyReadAt = await call();
    assert.equal(h.finishedSpans().length, 0, 'the span is held, not yet handed to the SDK');
    await sleep(20);
    h.instrumentation.flush();
    const [span, ...more] = h.finishedSpans();
    assert.ok(span !== undefined && more.length === 0, 'exactly one span after flush()');
    const endMs = span.endTime[0] * 1000 + span.endTime[1] / 1e6;
    // Recorded at the flush, the end would be 20 ms after the application had the body.
    assert.ok(endMs <= bodyReadAt + 1, `the end is when the body ended (${endMs} vs ${bodyReadAt})`);
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
    await sleep(120);
    assert.equal(h.finishedSpans().length, 1);
  });

  it('a held call, recorded later by the timer, is still a child of the span active where it was made', async () => {
    const job = h.tracerProvider.getTracer('app').startSpan('app.job');
    await context.with(trace.setSpan(context.active(), job), call);
    await sleep(120);
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
