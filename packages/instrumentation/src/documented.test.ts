import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { context, propagation, type TracerProvider, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import * as undici7 from 'undici7';
import {
  type Harness,
  pointsOf,
  type Script,
  type ScriptedServer,
  sse,
  startHarness,
  startScriptedServer,
} from '../test/harness.ts';
import { withAttempt } from './attempt-context.ts';
import { diagnose } from './diagnosis.ts';
import { METRIC, MILESTONE_METRIC } from './names.ts';

// Behaviour the README's "Observations", "Attributes", "Never recorded" and "Guarantees to the
// application" sections promise, checked as a user sees it: in the spans and points the SDK gets.

const CANARY = 'CANARY-documented-41c7';
const body = JSON.stringify({
  model: 'gpt-doc',
  stream: true,
  messages: [{ role: 'user', content: CANARY }],
});

const chunk = (delta: object) => sse({ model: 'gpt-doc', choices: [{ index: 0, delta }] });
const usage = sse({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } });

/** A Chat Completions stream whose pieces come at the given times (ms after the request arrived). */
function chatAt(t: { headers: number; reasoning?: number; text?: number; end: number }): () => Script {
  const pieces = [{ at: t.headers, bytes: chunk({ role: 'assistant', content: '' }) }];
  if (t.reasoning !== undefined)
    pieces.push({ at: t.reasoning, bytes: chunk({ reasoning_content: CANARY }) });
  if (t.text !== undefined) pieces.push({ at: t.text, bytes: chunk({ content: CANARY }) });
  pieces.push({ at: t.end, bytes: usage }, { at: t.end, bytes: 'data: [DONE]\n\n' });
  return () => ({ headersAt: t.headers, pieces });
}

async function post(server: ScriptedServer, path = '/v1/chat/completions', init: RequestInit = {}) {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', body, ...init });
  await res.text();
  return res;
}

/** Runs one call against a server made for it. */
async function withServer(script: () => Script, call: (s: ScriptedServer) => Promise<unknown>) {
  const server = await startScriptedServer(script);
  try {
    await call(server);
  } finally {
    await server.close();
  }
}

describe('documented attributes and outcomes', () => {
  let h: Harness;
  before(async () => {
    h = startHarness();
    // The first request of a process pays for loading undici's parser: not a phase of any call.
    await withServer(chatAt({ headers: 1, text: 2, end: 3 }), (s) => post(s));
  });
  after(async () => {
    await h.shutdown();
  });
  beforeEach(async () => {
    await h.reset();
  });

  async function collect() {
    h.instrumentation.flush();
    return h.collect();
  }

  it('HTTP ≥ 400 is an error classed by status — 401/403 unauthorized, 408 timeout, other 4xx http_4xx, 5xx http_5xx — on the span and every point', async () => {
    const classes: Array<[number, string]> = [
      [401, 'unauthorized'],
      [403, 'unauthorized'],
      [404, 'http_4xx'],
      [408, 'timeout'],
      [500, 'http_5xx'],
      [503, 'http_5xx'],
    ];
    for (const [status] of classes) {
      await withServer(
        () => ({
          status,
          headers: { 'content-type': 'application/json' },
          pieces: [{ at: 1, bytes: JSON.stringify({ error: { message: CANARY } }) }],
        }),
        async (s) => assert.equal((await post(s)).status, status),
      );
    }
    const spans = h.finishedSpans();
    assert.deepEqual(
      spans.map((s) => [
        s.attributes['http.response.status_code'],
        s.attributes['lanewatch.outcome'],
        s.attributes['error.type'],
      ]),
      classes.map(([status, type]) => [status, 'error', type]),
    );
    const collected = await collect();
    const points = pointsOf(collected, MILESTONE_METRIC.end).map((p) => [
      p.attributes['http.response.status_code'],
      p.attributes['lanewatch.outcome'],
      p.attributes['error.type'],
    ]);
    assert.deepEqual(
      points.sort((a, b) => Number(a[0]) - Number(b[0])),
      classes.map(([status, type]) => [status, 'error', type]),
    );
    // An error body is no stream: no chunk milestone is recorded, not even as 0.
    assert.equal(pointsOf(collected, MILESTONE_METRIC.first_chunk).length, 0);
    assert.ok(!JSON.stringify([spans.map((s) => [s.attributes, s.status]), h.diagnostics]).includes(CANARY));
  });

  it('an ok call carries no error.type, on the span or its points', async () => {
    await withServer(chatAt({ headers: 1, text: 2, end: 3 }), (s) => post(s));
    const [span] = h.finishedSpans();
    assert.equal(span?.attributes['lanewatch.outcome'], 'ok');
    assert.ok(span && !('error.type' in span.attributes));
    const [point] = pointsOf(await collect(), MILESTONE_METRIC.end);
    assert.equal(point?.attributes['lanewatch.outcome'], 'ok');
    assert.ok(point && !('error.type' in point.attributes));
  });

  it('an undici timeout mid-stream is an error of class timeout, not a cancellation', async () => {
    const agent = new undici7.Agent({ bodyTimeout: 100 });
    try {
      await withServer(
        () => ({
          headersAt: 1,
          pieces: [
            { at: 2, bytes: chunk({ content: CANARY }) },
            { at: 5_000, bytes: 'data: [DONE]\n\n' },
          ],
        }),
        async (s) => {
          const res = await undici7.request(`${s.url}/v1/chat/completions`, {
            method: 'POST',
            body,
            dispatcher: agent,
          });
          await assert.rejects(res.body.text(), { code: 'UND_ERR_BODY_TIMEOUT' });
        },
      );
    } finally {
      await agent.close();
    }
    const [span] = h.finishedSpans();
    assert.equal(span?.attributes['lanewatch.outcome'], 'error');
    assert.equal(span?.attributes['error.type'], 'timeout');
    assert.ok(span?.attributes['lanewatch.first_text_ms'] !== undefined, 'the text before it is kept');
  });

  it('lanewatch.size_class classes the request body: s from 1 KiB, m from 8 KiB, l from 64 KiB, xl from 512 KiB', async () => {
    const KiB = 1024;
    const sizes: Array<[number, string]> = [
      [KiB - 1, 'xs'],
      [KiB, 's'],
      [8 * KiB - 1, 's'],
      [8 * KiB, 'm'],
      [64 * KiB - 1, 'm'],
      [64 * KiB, 'l'],
      [512 * KiB - 1, 'l'],
      [512 * KiB, 'xl'],
    ];
    const bodyOf = (bytes: number) => {
      const head = '{"model":"gpt-doc","stream":true,"pad":"';
      const tail = '"}';
      return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
    };
    await withServer(chatAt({ headers: 1, text: 2, end: 3 }), async (s) => {
      for (const [bytes] of sizes) {
        const sent = bodyOf(bytes);
        assert.equal(Buffer.byteLength(sent), bytes);
        await post(s, '/v1/chat/completions', { body: sent });
      }
    });
    assert.deepEqual(
      h.finishedSpans().map((s) => s.attributes['lanewatch.size_class']),
      sizes.map(([, size]) => size),
    );
    const classes = pointsOf(await collect(), MILESTONE_METRIC.end).map(
      (p) => p.attributes['lanewatch.size_class'],
    );
    assert.deepEqual(classes.sort(), ['l', 'm', 's', 'xl', 'xs']);
  });

  it('lanewatch.attempt is 1 by default, then 2, 3 and 4+ from the fourth try, from the retry header or withAttempt', async () => {
    await withServer(chatAt({ headers: 1, text: 2, end: 3 }), async (s) => {
      await post(s);
      await post(s, '/v1/chat/completions', { headers: { 'x-stainless-retry-count': '1' } });
      await withAttempt(3, () => post(s));
      await post(s, '/v1/chat/completions', { headers: { 'x-stainless-retry-count': '3' } });
      await withAttempt(4, () => post(s));
    });
    assert.deepEqual(
      h.finishedSpans().map((s) => s.attributes['lanewatch.attempt']),
      ['1', '2', '3', '4+', '4+'],
    );
  });

  it('output tokens per second is output tokens ÷ (end − first text), on the span and as a point; token usage by gen_ai.token.type', async () => {
    await withServer(chatAt({ headers: 1, text: 20, end: 60 }), (s) => post(s));
    const [span] = h.finishedSpans();
    assert.ok(span);
    const a = span.attributes;
    const expected =
      7 / (((a['lanewatch.end_ms'] as number) - (a['lanewatch.first_text_ms'] as number)) / 1000);
    const recorded = a['lanewatch.output_tokens_per_second'] as number;
    assert.ok(Math.abs(recorded - expected) < 0.01 * expected, `${recorded} tokens/s, expected ${expected}`);
    const collected = await collect();
    const [rate] = pointsOf(collected, METRIC.outputTokensPerSecond);
    const value = rate?.value as { count: number; sum: number };
    assert.equal(value.count, 1);
    assert.ok(Math.abs(value.sum - expected) < 0.01 * expected);
    const tokens = pointsOf(collected, METRIC.tokenUsage).map((p) => [
      p.attributes['gen_ai.token.type'],
      (p.value as { sum: number }).sum,
    ]);
    assert.deepEqual(
      tokens.sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      [
        ['input', 11],
        ['output', 7],
      ],
    );
  });

  it('no first text, no tokens per second: a reasoning-only stream has tokens but no rate', async () => {
    await withServer(chatAt({ headers: 1, reasoning: 2, end: 3 }), (s) => post(s));
    const [span] = h.finishedSpans();
    assert.equal(span?.attributes['gen_ai.usage.output_tokens'], 7);
    assert.equal(span?.attributes['lanewatch.first_text_ms'], undefined);
    assert.ok(span && !('lanewatch.output_tokens_per_second' in span.attributes));
    const collected = await collect();
    assert.equal(pointsOf(collected, METRIC.outputTokensPerSecond).length, 0);
    assert.equal(pointsOf(collected, MILESTONE_METRIC.first_text).length, 0);
  });

  it('names the operation, provider, model, format and port: chat, generate_content (model from the URL), text_completion', async () => {
    await withServer(chatAt({ headers: 1, text: 2, end: 3 }), (s) => post(s));
    await withServer(
      () => ({
        pieces: [
          {
            at: 1,
            bytes: sse({ candidates: [{ content: { parts: [{ text: CANARY }] }, finishReason: 'STOP' }] }),
          },
        ],
      }),
      (s) =>
        post(s, `/v1beta/models/gemini-doc:streamGenerateContent?alt=sse&key=${CANARY}`, {
          body: JSON.stringify({ contents: [{ parts: [{ text: CANARY }] }] }),
        }),
    );
    let port = '';
    await withServer(
      () => ({
        headers: { 'content-type': 'application/x-ndjson' },
        pieces: [
          { at: 1, bytes: `${JSON.stringify({ model: 'llama-doc', response: CANARY, done: false })}\n` },
          { at: 2, bytes: `${JSON.stringify({ model: 'llama-doc', response: '', done: true })}\n` },
        ],
      }),
      async (s) => {
        port = new URL(s.url).port;
        await post(s, '/api/generate', { body: JSON.stringify({ model: 'llama-doc', prompt: CANARY }) });
      },
    );
    const spans = h.finishedSpans();
    assert.deepEqual(
      spans.map((s) => [
        s.name,
        s.attributes['gen_ai.operation.name'],
        s.attributes['gen_ai.provider.name'],
        s.attributes['gen_ai.request.model'],
        s.attributes['lanewatch.format'],
        s.attributes['lanewatch.outcome'],
        s.attributes['server.address'],
      ]),
      [
        ['chat gpt-doc', 'chat', 'openai', 'gpt-doc', 'openai_chat', 'ok', '127.0.0.1'],
        [
          'generate_content gemini-doc',
          'generate_content',
          'gcp.gemini',
          'gemini-doc',
          'gemini',
          'ok',
          '127.0.0.1',
        ],
        ['text_completion llama-doc', 'text_completion', 'ollama', 'llama-doc', 'ollama', 'ok', '127.0.0.1'],
      ],
    );
    assert.equal(spans[2]?.attributes['server.port'], Number(port));
    const points = pointsOf(await collect(), MILESTONE_METRIC.end).map((p) => p.attributes);
    assert.deepEqual(points.map((p) => p['gen_ai.operation.name']).sort(), [
      'chat',
      'generate_content',
      'text_completion',
    ]);
    assert.ok(
      points.every((p) => !('server.port' in p) && !('lanewatch.format' in p)),
      'span only',
    );
    assert.ok(!JSON.stringify([spans.map((s) => s.attributes), points]).includes(CANARY));
  });

  describe('lanewatch.diagnosis names the phase that took the largest share', () => {
    // Each stream puts ~150 ms in one phase and a few ms in the others.
    const cases: Array<[string, Parameters<typeof chatAt>[0]]> = [
      ['upstream_headers_slow', { headers: 150, reasoning: 152, text: 153, end: 155 }],
      ['output_after_headers_slow', { headers: 1, reasoning: 150, text: 152, end: 154 }],
      ['text_after_action_slow', { headers: 1, reasoning: 3, text: 150, end: 152 }],
      ['generation_slow', { headers: 1, reasoning: 3, text: 5, end: 150 }],
    ];
    for (const [label, times] of cases) {
      it(label, async () => {
        await withServer(chatAt(times), (s) => post(s));
        assert.equal(h.finishedSpans()[0]?.attributes['lanewatch.diagnosis'], label);
      });
    }
  });
});

describe('diagnose: the order of the phases and what it needs', () => {
  it('names the longest phase, the earlier one on a tie, and nothing with fewer than two phases', () => {
    assert.equal(diagnose(10, 20, 30, 40), 'upstream_headers_slow', 'a four-way tie: the first phase');
    assert.equal(diagnose(10, 21, 30, 40), 'output_after_headers_slow');
    assert.equal(diagnose(10, 20, 31, 40), 'text_after_action_slow');
    assert.equal(diagnose(10, 20, 30, 41), 'generation_slow');
    // No effective output other than text: first output is first text, so no action phase.
    assert.equal(diagnose(10, undefined, 15, 40), 'generation_slow');
    // Tool calls only, no text: headers → first output is all there is after the headers.
    assert.equal(diagnose(10, 30, undefined, 1000), 'output_after_headers_slow');
    assert.equal(diagnose(undefined, 20, 30, 40), undefined);
    assert.equal(diagnose(10, undefined, undefined, 40), undefined);
  });
});

describe('guarantees to the application', () => {
  let h: Harness;
  before(() => {
    h = startHarness();
  });
  after(async () => {
    await h.shutdown();
    propagation.disable();
  });

  it('nothing is added to the request: no header, no trace context, even with a propagator and an active span', async () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const seen: string[][] = [];
    const capture = await startScriptedServer((req) => {
      seen.push(Object.keys(req.headers).sort());
      return { pieces: [{ at: 1, bytes: 'data: [DONE]\n\n' }] };
    });
    try {
      const job = h.tracerProvider.getTracer('app').startSpan('app.job');
      const call = () =>
        context.with(trace.setSpan(context.active(), job), () =>
          post(capture, '/v1/chat/completions', { headers: { 'content-type': 'application/json' } }),
        );
      await call();
      h.instrumentation.disable();
      await call();
      h.instrumentation.enable();
      job.end();
    } finally {
      await capture.close();
    }
    assert.equal(
      h.finishedSpans().filter((s) => s.name === 'chat gpt-doc').length,
      1,
      'the call was followed',
    );
    assert.equal(seen.length, 2);
    assert.deepEqual(seen[0], seen[1], 'the same headers with lanewatch on as off');
    assert.ok(!seen[0]?.some((name) => ['traceparent', 'tracestate', 'baggage'].includes(name)));
  });

  it('a tracer provider that throws costs the application nothing: the body arrives whole and the failure is logged', async () => {
    const broken = {
      getTracer: () => ({
        startSpan: () => {
          throw new Error('tracer backend exploded');
        },
        startActiveSpan: () => {
          throw new Error('tracer backend exploded');
        },
      }),
    } as unknown as TracerProvider;
    h.instrumentation.setTracerProvider(broken);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    const sent = `${chunk({ content: 'a' })}data: [DONE]\n\n`;
    try {
      await withServer(
        () => ({ pieces: [{ at: 1, bytes: sent }] }),
        async (s) => {
          const res = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', body });
          assert.equal(res.status, 200);
          assert.equal(await res.text(), sent);
        },
      );
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(uncaught, []);
      assert.ok(
        h.diagnostics.some((d) => d.includes('lanewatch failed')),
        'reported through the diag logger',
      );
    } finally {
      process.off('uncaughtException', onUncaught);
      h.instrumentation.setTracerProvider(h.tracerProvider);
    }
  });
});
