import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, beforeEach, describe, it } from 'node:test';
import { context, trace } from '@opentelemetry/api';
import OpenAI from 'openai';
import * as undici from 'undici';
import {
  assertMilestonesRecordedWithin,
  exportedText,
  type Harness,
  pointsOf,
  type ScriptedServer,
  sse,
  startHarness,
  startScriptedServer,
  waitFor,
} from '../test/harness.ts';
import { withAttempt } from './attempt-context.ts';
import { bundledUndiciPublishesChunks } from './instrumentation.ts';
import { MILESTONE_EVENT, MILESTONE_METRIC, MILESTONE_SPAN_MS } from './names.ts';

const CANARY = 'CANARY-7f3a91-do-not-export';
const path = bundledUndiciPublishesChunks() ? 'diagnostics channel' : 'dispatcher pass-through';

/** An OpenAI chat stream: role at 40 ms, reasoning at 80, text at 120, more text, usage, [DONE]. */
function chatScript(opts: { done?: boolean; reset?: boolean } = {}) {
  const chunk = (delta: object, extra: object = {}) =>
    sse({
      id: 'c1',
      object: 'chat.completion.chunk',
      model: 'gpt-test',
      choices: [{ index: 0, delta }],
      ...extra,
    });
  const pieces = [
    { at: 40, bytes: chunk({ role: 'assistant', content: '' }) },
    { at: 80, bytes: chunk({ reasoning_content: `thinking ${CANARY}` }) },
    { at: 120, bytes: chunk({ content: `Hello ${CANARY}` }) },
    { at: 140, bytes: chunk({ content: ' world' }) },
    { at: 160, bytes: sse({ id: 'c1', choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } }) },
  ];
  if (opts.done !== false) pieces.push({ at: 170, bytes: 'data: [DONE]\n\n' });
  return () => ({ headersAt: 20, pieces, reset: opts.reset });
}

const body = JSON.stringify({
  model: 'gpt-test',
  stream: true,
  messages: [{ role: 'user', content: CANARY }],
});

describe(`instrumentation on Node ${process.version} (${path})`, () => {
  let h: Harness;
  let server: ScriptedServer;

  before(async () => {
    h = startHarness();
    // The first request of a process pays for loading and compiling undici's HTTP parser;
    // the milestones under test are those of a warm client, as in a running application.
    const warm = await startScriptedServer(chatScript());
    await (await fetch(`${warm.url}/v1/chat/completions`, { method: 'POST', body })).text();
    await warm.close();
  });
  after(async () => {
    await h.shutdown();
  });
  beforeEach(async () => {
    await h.reset();
  });

  it('records every milestone of a global-fetch stream within 2 ms of the server sending it', async (t) => {
    // Eleven calls, each milestone's error judged by assertRecordedWithin: a loaded 2-core machine
    // delays some calls, or all of a stretch, whatever lanewatch does.
    const errors: Record<string, number[]> = {};
    const createdAt: number[] = [];
    const onCreate = () => createdAt.push(performance.now());
    diagnosticsChannel.subscribe('undici:request:create', onCreate);
    server = await startScriptedServer(chatScript());
    try {
      for (let i = 0; i < 11; i++) {
        await h.reset();
        const res = await fetch(`${server.url}/v1/chat/completions?api_key=${CANARY}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${CANARY}` },
          body,
        });
        assert.ok((await res.text()).includes('[DONE]'));
        const [span] = h.finishedSpans();
        assert.ok(span, 'one span');
        // t1 on the performance clock, taken by a subscriber that runs right after lanewatch's own.
        const t1 = createdAt.at(-1) as number;
        const sent = server.sent.map((t) => t - t1);
        const ev = Object.fromEntries(
          (['headers', 'first_chunk', 'first_output', 'first_text', 'end'] as const).map((m) => [
            m,
            span.attributes[MILESTONE_SPAN_MS[m]] as number | undefined,
          ]),
        );
        assert.deepEqual(
          span.events.map((e) => e.name),
          Object.values(MILESTONE_EVENT),
          'one span event per milestone, in order',
        );
        const expected: Record<string, number | undefined> = {
          headers: (server.headersSentAt ?? Number.NaN) - t1,
          first_chunk: sent[0], // the role delta
          first_output: sent[1], // reasoning
          first_text: sent[2],
          end: sent[5],
        };
        for (const [name, at] of Object.entries(expected)) {
          const observed = ev[name];
          assert.ok(observed !== undefined && at !== undefined, `${name} present`);
          assert.ok(
            observed >= at - 0.5,
            `${name} is not observed before it was sent (${observed} vs ${at})`,
          );
          errors[name] = [...(errors[name] ?? []), observed - at];
        }
        if (i > 0) continue;
        assert.equal(span.attributes['lanewatch.output.kind'], 'reasoning');
        assert.equal(span.attributes['lanewatch.outcome'], 'ok');
        assert.equal(span.attributes['gen_ai.request.model'], 'gpt-test');
        assert.equal(span.attributes['gen_ai.usage.input_tokens'], 11);
        assert.equal(span.attributes['gen_ai.usage.output_tokens'], 7);
        assert.equal(span.attributes['lanewatch.chunks'], 6);
        assert.equal(span.attributes['lanewatch.lane'], 'openai/gpt-test');
        assert.equal(span.attributes['lanewatch.size_class'], 'xs');
        assert.equal(span.name, 'chat gpt-test');

        const collected = await h.collect();
        for (const name of Object.values(MILESTONE_METRIC)) {
          assert.equal(pointsOf(collected, name).length, 1, `${name} has one point`);
        }
        const [ttft] = pointsOf(collected, MILESTONE_METRIC.first_text);
        const value = ttft?.value as { count: number; positive?: unknown; scale?: number };
        assert.equal(value.count, 1);
        assert.ok('scale' in value && 'positive' in value, 'an exponential histogram');
        assert.equal(ttft?.attributes['lanewatch.outcome'], 'ok');
      }
      for (const line of assertMilestonesRecordedWithin(errors)) t.diagnostic(line);
    } finally {
      diagnosticsChannel.unsubscribe('undici:request:create', onCreate);
      await server.close();
    }
  });

  it('never puts prompt, response, reasoning, credentials or the query string in spans, metrics or logs', async () => {
    server = await startScriptedServer(chatScript());
    try {
      const res = await fetch(`${server.url}/v1/chat/completions?key=${CANARY}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CANARY}`, 'x-api-key': CANARY },
        body,
      });
      await res.text();
      const exported = await exportedText(h);
      assert.ok(exported.length > 500);
      assert.ok(!exported.includes(CANARY), 'the canary is nowhere');
    } finally {
      await server.close();
    }
  });

  it('a 429 is an error of class rate_limited, with headers and end but no chunk milestones', async () => {
    server = await startScriptedServer(() => ({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '1' },
      pieces: [{ at: 5, bytes: JSON.stringify({ error: { message: CANARY, type: 'rate_limit_exceeded' } }) }],
    }));
    try {
      const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
      assert.equal(res.status, 429);
      await res.text();
      const [span] = h.finishedSpans();
      assert.ok(span);
      assert.equal(span.attributes['lanewatch.outcome'], 'error');
      assert.equal(span.attributes['error.type'], 'rate_limited');
      assert.equal(span.attributes['http.response.status_code'], 429);
      const names = span.events.map((e) => e.name);
      assert.deepEqual(names, [MILESTONE_EVENT.headers, MILESTONE_EVENT.end]);
      assert.equal(span.attributes['lanewatch.first_chunk_ms'], undefined, 'absent, never 0');
    } finally {
      await server.close();
    }
  });

  it('a body that ends before [DONE] is truncated; a reset connection is an error', async () => {
    server = await startScriptedServer(chatScript({ done: false }));
    try {
      await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body })).text();
      assert.equal(h.finishedSpans()[0]?.attributes['lanewatch.outcome'], 'truncated');
    } finally {
      await server.close();
    }
    await h.reset();
    server = await startScriptedServer(chatScript({ done: false, reset: true }));
    try {
      const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
      await assert.rejects(res.text());
      const [span] = h.finishedSpans();
      assert.equal(span?.attributes['lanewatch.outcome'], 'error');
      assert.equal(span?.attributes['error.type'], 'connection_reset');
      assert.ok(
        span?.attributes['lanewatch.first_text_ms'] !== undefined,
        'milestones before the reset are kept',
      );
    } finally {
      await server.close();
    }
  });

  it('a caller abort mid-stream is cancelled, not an error', async () => {
    server = await startScriptedServer(chatScript());
    try {
      const controller = new AbortController();
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        body,
        signal: controller.signal,
      });
      const reader = res.body?.getReader();
      await reader?.read();
      controller.abort();
      await assert.rejects(async () => {
        while (!(await reader?.read())?.done) {}
      });
      await waitFor(() => h.finishedSpans().length === 1);
      const [span] = h.finishedSpans();
      assert.equal(span?.attributes['lanewatch.outcome'], 'cancelled');
      assert.equal(span?.attributes['error.type'], undefined);
    } finally {
      await server.close();
    }
  });

  it('a client that lets go at [DONE], before the body ends, made a whole call: ok, ended when it let go', async () => {
    // The openai client stops reading at [DONE] and cancels the rest of the body. Here the server
    // ends the body 300 ms after [DONE], as a server or proxy that closes late does (over HTTP/2 the
    // end is a frame of its own whenever a server sends it apart).
    const script = chatScript();
    server = await startScriptedServer(() => ({ ...script(), endAt: 470 }));
    try {
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: CANARY, maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: CANARY }],
        stream: true,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      assert.equal(text, `Hello ${CANARY} world`);
      await waitFor(() => h.finishedSpans().length === 1);
      const [span] = h.finishedSpans();
      assert.equal(span?.attributes['lanewatch.outcome'], 'ok');
      assert.equal(span?.attributes['error.type'], undefined);
      const end = span?.attributes['lanewatch.end_ms'] as number;
      assert.ok(
        end >= 170 && end < 400,
        `end ${end} ms: when the client let go after [DONE] (170 ms), not the body's end (470)`,
      );
      assert.ok(span?.attributes['lanewatch.diagnosis'] !== undefined, 'an ok call has its diagnosis');
    } finally {
      await server.close();
    }
  });

  it('takes the attempt from x-stainless-retry-count, and from withAttempt in the caller context', async () => {
    server = await startScriptedServer(chatScript());
    try {
      await (
        await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          body,
          headers: { 'x-stainless-retry-count': '2' },
        })
      ).text();
      await withAttempt(5, async () =>
        (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body })).text(),
      );
      const attempts = h.finishedSpans().map((s) => s.attributes['lanewatch.attempt']);
      assert.deepEqual(attempts, ['3', '4+']);
    } finally {
      await server.close();
    }
  });

  it('numbers a retry that says nothing by the failed request it repeats, through fetch and undici.request', async () => {
    const failing = new Set([0, 2, 5, 7, 8, 9]);
    let n = 0;
    const ok = chatScript();
    server = await startScriptedServer(() =>
      failing.has(n++)
        ? { status: 503, headers: { 'content-type': 'application/json' }, pieces: [{ at: 1, bytes: '{}' }] }
        : ok(),
    );
    const other = JSON.stringify({
      ...JSON.parse(body),
      messages: [{ role: 'user', content: `other ${CANARY}` }],
    });
    const viaFetch = async (payload = body) => {
      const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body: payload });
      await res.text();
      return res.ok;
    };
    const viaRequest = async () => {
      const res = await undici.request(`${server.url}/v1/chat/completions`, { method: 'POST', body });
      await res.body.text();
      return res.statusCode === 200;
    };
    try {
      // An application's own retry loop: the same request until it succeeds.
      for (const send of [viaFetch, viaRequest]) while (!(await send()));
      // A failed call and then a different one; three tries in a row.
      assert.equal(await viaFetch(), true);
      assert.equal(await viaFetch(), false);
      assert.equal(await viaFetch(other), true);
      for (const _ of [7, 8, 9]) assert.equal(await viaFetch(), false);
      assert.equal(await viaFetch(), true);
      const attempts = h
        .finishedSpans()
        .map((s) => [s.attributes['lanewatch.attempt'], s.attributes['lanewatch.outcome']]);
      assert.deepEqual(attempts, [
        ['1', 'error'],
        ['2', 'ok'],
        ['1', 'error'],
        ['2', 'ok'],
        ['1', 'ok'],
        ['1', 'error'],
        ['1', 'ok'],
        ['2', 'error'],
        ['3', 'error'],
        ['4+', 'error'],
        ['4+', 'ok'],
      ]);
      assert.ok(!(await exportedText(h)).includes(CANARY));
    } finally {
      await server.close();
    }
  });

  it('takes for a retry only a repeat in the same trace, not one after a cancel, and none with inferRetries: false', async () => {
    let failNext = true;
    const ok = chatScript();
    server = await startScriptedServer(() => {
      const fail = failNext;
      failNext = false;
      return fail
        ? { status: 500, headers: { 'content-type': 'application/json' }, pieces: [{ at: 1, bytes: '{}' }] }
        : ok();
    });
    const send = async () => {
      const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
      await res.text();
    };
    const tracer = h.tracerProvider.getTracer('app');
    const inSpan = async (name: string, fn: () => Promise<void>) => {
      const span = tracer.startSpan(name);
      await context.with(trace.setSpan(context.active(), span), fn);
      span.end();
    };
    const attempts = () =>
      h
        .finishedSpans()
        .filter((s) => s.attributes['lanewatch.attempt'] !== undefined)
        .map((s) => s.attributes['lanewatch.attempt']);
    try {
      // Two requests of users, each in its trace: the second is not the first's retry.
      await inSpan('user-1', send);
      await inSpan('user-2', send);
      // One job's retry loop, in its trace.
      failNext = true;
      await inSpan('job', async () => {
        await send();
        await send();
      });
      // A cancelled call is not one a retry repeats.
      const controller = new AbortController();
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        body,
        signal: controller.signal,
      });
      controller.abort();
      await res.text().catch(() => {});
      await send();
      // Off: attempts only from the header and withAttempt.
      h.instrumentation.setConfig({ ...h.instrumentation.getConfig(), inferRetries: false });
      failNext = true;
      await send();
      await send();
      await waitFor(() => attempts().length === 8);
      assert.deepEqual(attempts(), ['1', '1', '1', '2', '1', '1', '1', '1']);
    } finally {
      h.instrumentation.setConfig({ ...h.instrumentation.getConfig(), inferRetries: true });
      await server.close();
    }
  });

  it("makes a call's span a child of the span that was active where the application made the call", async () => {
    server = await startScriptedServer(chatScript());
    try {
      const job = h.tracerProvider.getTracer('app').startSpan('app.job');
      await context.with(trace.setSpan(context.active(), job), async () => {
        await new Promise((resolve) => setTimeout(resolve, 1)); // across a timer and an await
        await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body })).text();
      });
      await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body })).text();
      job.end();
      const [inside, outside] = h.finishedSpans().filter((s) => s.name !== 'app.job');
      assert.equal(inside?.spanContext().traceId, job.spanContext().traceId);
      assert.equal(inside?.parentSpanContext?.spanId, job.spanContext().spanId);
      assert.ok(outside !== undefined, 'the call made outside the job has a span too');
      assert.equal(outside.parentSpanContext, undefined);
      assert.notEqual(outside.spanContext().traceId, job.spanContext().traceId);
    } finally {
      await server.close();
    }
  });

  it('leaves non-LLM traffic alone', async () => {
    server = await startScriptedServer(() => ({
      headers: { 'content-type': 'application/json' },
      pieces: [{ at: 1, bytes: '{"ok":true}' }],
    }));
    try {
      await (await fetch(`${server.url}/health`)).text();
      await (await fetch(`${server.url}/api/things`, { method: 'POST', body: '{}' })).text();
      assert.equal(h.finishedSpans().length, 0);
    } finally {
      await server.close();
    }
  });
});
