import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import tls from 'node:tls';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import OpenAI from 'openai';
import * as undici from 'undici';
import * as undici7 from 'undici7';
import {
  assertRecordedWithin,
  exportedText,
  type Harness,
  pointsOf,
  type Script,
  type ScriptedRequest,
  type ScriptedServer,
  sse,
  startHarness,
  startScriptedServer,
  TEST_CA,
  waitFor,
} from '../test/harness.ts';
import { MILESTONE_EVENT, MILESTONE_METRIC, MILESTONE_SPAN_MS } from './names.ts';

/**
 * HTTP/2. Provider APIs offer h2 over TLS, and from undici 8 on a client takes it by default: Node
 * 26's global fetch (bundled undici 8) and the undici 8 package negotiate h2 with any server that
 * offers it, where Node 22's and 24's fetch stay on HTTP/1.1. Over h2 undici 8 publishes response
 * headers as an object of lower-case names, not as name/value pairs — lanewatch once missed the
 * content type there and recorded no stream milestone at all. The server here is HTTPS offering
 * `h2` and `http/1.1` by ALPN, as a provider's is; each test checks the protocol the server saw.
 */

const CANARY = 'CANARY-h2-5c0e7b-do-not-export';
const bundledUndiciMajor = Number(process.versions.undici?.split('.')[0]);
/** What global fetch negotiates with a server that offers both. */
const fetchProtocol = bundledUndiciMajor >= 8 ? '2.0' : '1.1';
/** Node 22.15–22.18 cannot trust a certificate at run time (`tls.setDefaultCACertificates`, 22.19). */
const canTrustAtRunTime = typeof tls.setDefaultCACertificates === 'function';

const body = (model = 'gpt-h2') =>
  JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: CANARY }] });

/** An OpenAI chat stream: role at `base`, reasoning 20 ms later, text 20 ms after that, then the rest. */
function chatScript(opts: { base?: number; done?: boolean; reset?: boolean } = {}): Script {
  const base = opts.base ?? 30;
  const chunk = (delta: object) =>
    sse({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-h2', choices: [{ index: 0, delta }] });
  const pieces = [
    { at: base, bytes: chunk({ role: 'assistant', content: '' }) },
    { at: base + 20, bytes: chunk({ reasoning_content: `thinking ${CANARY}` }) },
    { at: base + 40, bytes: chunk({ content: `Hello ${CANARY}` }) },
    { at: base + 50, bytes: chunk({ content: ' world' }) },
    {
      at: base + 60,
      bytes: sse({ id: 'c1', choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } }),
    },
  ];
  if (opts.done !== false) pieces.push({ at: base + 65, bytes: 'data: [DONE]\n\n' });
  return { headersAt: 15, pieces, reset: opts.reset };
}

const spanMs = (span: ReadableSpan, milestone: keyof typeof MILESTONE_SPAN_MS) =>
  span.attributes[MILESTONE_SPAN_MS[milestone]] as number | undefined;

/** Every milestone of `chatScript`, each observed after it was sent and within `slackMs` of it. */
function assertMilestones(
  span: ReadableSpan,
  server: Pick<ScriptedRequest, 'sent' | 'headersSentAt'>,
  t1: number,
  slackMs: number,
): void {
  assert.deepEqual(
    span.events.map((e) => e.name),
    Object.values(MILESTONE_EVENT),
    'one span event per milestone, in order',
  );
  const sent = server.sent.map((t) => t - t1);
  const expected = {
    headers: (server.headersSentAt as number) - t1,
    first_chunk: sent[0] as number,
    first_output: sent[1] as number,
    first_text: sent[2] as number,
    end: sent[5] as number,
  };
  for (const [name, at] of Object.entries(expected)) {
    const observed = spanMs(span, name as keyof typeof expected);
    assert.ok(observed !== undefined, `${name} is recorded`);
    assert.ok(observed >= at - 0.5, `${name} is not observed before it was sent (${observed} vs ${at})`);
    assert.ok(observed - at <= slackMs, `${name} observed ${(observed - at).toFixed(2)} ms after its send`);
  }
  assert.equal(span.attributes['lanewatch.format'], 'openai_chat');
  assert.equal(span.attributes['lanewatch.output.kind'], 'reasoning');
  assert.equal(span.attributes['lanewatch.outcome'], 'ok');
  assert.equal(span.attributes['lanewatch.chunks'], 6);
  assert.equal(span.attributes['gen_ai.usage.input_tokens'], 11);
  assert.equal(span.attributes['gen_ai.usage.output_tokens'], 7);
}

describe(`HTTP/2 on Node ${process.version} (bundled undici ${process.versions.undici}: fetch speaks ${fetchProtocol === '2.0' ? 'h2' : 'HTTP/1.1'})`, () => {
  let h: Harness;
  let agent: undici.Agent;
  let agent7: undici7.Agent;
  const createdAt: number[] = [];
  const onCreate = () => createdAt.push(performance.now());

  before(async () => {
    h = startHarness();
    if (canTrustAtRunTime) {
      tls.setDefaultCACertificates([...tls.getCACertificates('default'), TEST_CA]);
    }
    agent = new undici.Agent({ connect: { ca: TEST_CA } }); // undici 8: allowH2 by default
    agent7 = new undici7.Agent({ allowH2: true, connect: { ca: TEST_CA } });
    diagnosticsChannel.subscribe('undici:request:create', onCreate);
    // Warm the clients and the h2 code paths: the milestones under test are a running process's.
    const warm = await startScriptedServer(() => chatScript({ base: 1 }), { http2: true });
    await (
      await undici.fetch(`${warm.url}/v1/chat/completions`, {
        method: 'POST',
        body: body(),
        dispatcher: agent,
      })
    ).text();
    await (
      await undici7.fetch(`${warm.url}/v1/chat/completions`, {
        method: 'POST',
        body: body(),
        dispatcher: agent7,
      })
    ).text();
    if (canTrustAtRunTime)
      await (await fetch(`${warm.url}/v1/chat/completions`, { method: 'POST', body: body() })).text();
    await warm.close();
  });
  after(async () => {
    diagnosticsChannel.unsubscribe('undici:request:create', onCreate);
    await agent.close();
    await agent7.close();
    await h.shutdown();
  });
  beforeEach(async () => {
    await h.reset();
  });

  it(`global fetch (${fetchProtocol === '2.0' ? 'h2' : 'HTTP/1.1 with this Node'}): every milestone within 2 ms of its send, over 8 calls`, {
    skip: canTrustAtRunTime
      ? false
      : 'this Node cannot trust the test certificate at run time (tls.setDefaultCACertificates came in 22.19)',
  }, async (t) => {
    const server = await startScriptedServer(() => chatScript(), { http2: true });
    try {
      const lateness: number[] = [];
      const headersLateness: number[] = [];
      for (let i = 0; i < 8; i++) {
        await h.reset();
        const res = await fetch(`${server.url}/v1/chat/completions?api_key=${CANARY}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${CANARY}` },
          body: body(),
        });
        assert.ok((await res.text()).includes('[DONE]'));
        const [span] = h.finishedSpans();
        assert.ok(span, 'one span');
        const t1 = createdAt.at(-1) as number;
        assertMilestones(span, server, t1, 25);
        lateness.push((spanMs(span, 'first_text') as number) - ((server.sent[2] as number) - t1));
        headersLateness.push((spanMs(span, 'headers') as number) - ((server.headersSentAt as number) - t1));
      }
      assert.deepEqual(
        new Set(server.protocols),
        new Set([fetchProtocol]),
        'the protocol this Node negotiates',
      );
      t.diagnostic(assertRecordedWithin('headers', headersLateness));
      t.diagnostic(assertRecordedWithin('first_text', lateness, headersLateness));
    } finally {
      await server.close();
    }
  });

  it('the undici 8 package (h2 by default): fetch, request and stream, one connection, every milestone', async () => {
    const server = await startScriptedServer(() => chatScript(), { http2: true });
    try {
      const url = `${server.url}/v1/chat/completions`;
      const t1s: number[] = [];
      await (await undici.fetch(url, { method: 'POST', body: body(), dispatcher: agent })).text();
      t1s.push(createdAt.at(-1) as number);
      const response = await undici.request(url, { method: 'POST', body: body(), dispatcher: agent });
      t1s.push(createdAt.at(-1) as number);
      await response.body.text();
      const received: Buffer[] = [];
      await undici.stream(
        url,
        { method: 'POST', body: body(), dispatcher: agent },
        () =>
          new Writable({
            write(chunk: Buffer, _encoding, callback) {
              received.push(chunk);
              callback();
            },
          }),
      );
      t1s.push(createdAt.at(-1) as number);
      assert.ok(Buffer.concat(received).toString().includes('[DONE]'), 'stream() got the whole body');

      assert.deepEqual(server.protocols, ['2.0', '2.0', '2.0']);
      assert.equal(server.connections, 1, 'the three calls shared one h2 connection');
      const spans = h.finishedSpans();
      assert.equal(spans.length, 3, 'one span per call');
      spans.forEach((span, i) => {
        assertMilestones(span, server.requests[i] as ScriptedRequest, t1s[i] as number, 25);
      });
      const collected = await h.collect();
      for (const name of Object.values(MILESTONE_METRIC)) {
        assert.equal(pointsOf(collected, name).length, 1, `${name}: one series`);
      }
    } finally {
      await server.close();
    }
  });

  it('the undici 7 package with allowH2: every milestone (headers as name/value pairs)', async () => {
    const server = await startScriptedServer(() => chatScript(), { http2: true });
    try {
      const res = await undici7.fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        body: body(),
        dispatcher: agent7,
      });
      await res.text();
      assert.deepEqual(server.protocols, ['2.0']);
      const [span] = h.finishedSpans();
      assert.ok(span);
      assertMilestones(span, server, createdAt.at(-1) as number, 25);
    } finally {
      await server.close();
    }
  });

  it('six calls multiplexed on one connection each keep their own milestones', async () => {
    // Call k (model m-k) starts its stream 50·k ms after it arrives: interleaved frames of six
    // streams on one session. Each span's headers → first text must be its own stream's, as the
    // server sent them (the connection's set-up delays every call's start, not that interval):
    // nearer to it than to any other call's, 50 ms apart, whatever this process stalled (up to 25 ms).
    const server = await startScriptedServer(
      (req) => chatScript({ base: 20 + 50 * Number(req.headers['x-case']) }),
      { http2: true },
    );
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    try {
      await Promise.all(
        [0, 1, 2, 3, 4, 5].map(async (k) => {
          const res = await undici.fetch(`${server.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { 'x-case': String(k) },
            body: body(`m-${k}`),
            dispatcher: agent,
          });
          await res.text();
        }),
      );
      loopDelay.disable();
      const stalledMs = loopDelay.max / 1e6;
      assert.equal(server.connections, 1, 'one h2 connection');
      assert.deepEqual(new Set(server.protocols), new Set(['2.0']));
      const spans = h.finishedSpans();
      assert.equal(spans.length, 6);
      // The server's headers → first text interval of each call, by its case number.
      const sentInterval = new Map(
        server.requests.map((r) => [
          Number(r.headers['x-case']),
          (r.sent[2] as number) - (r.headersSentAt as number),
        ]),
      );
      for (const span of spans) {
        const k = Number(String(span.attributes['gen_ai.request.model']).slice(2));
        const observed = (spanMs(span, 'first_text') as number) - (spanMs(span, 'headers') as number);
        const own = sentInterval.get(k) as number;
        const nearest = [...sentInterval].sort(
          (a, b) => Math.abs(a[1] - observed) - Math.abs(b[1] - observed),
        )[0];
        assert.equal(
          nearest?.[0],
          k,
          `m-${k}: headers → first text ${observed.toFixed(1)} ms is its own stream's (${own.toFixed(1)})`,
        );
        assert.ok(
          Math.abs(observed - own) <= 12 + stalledMs,
          `m-${k}: ${observed.toFixed(1)} ms against ${own.toFixed(1)} sent (the loop stalled ${stalledMs.toFixed(1)} ms at most)`,
        );
        assert.equal(span.attributes['lanewatch.outcome'], 'ok');
        assert.equal(span.attributes['lanewatch.chunks'], 6);
      }
    } finally {
      loopDelay.disable();
      await server.close();
    }
  });

  it('the openai client streams over h2 (its default fetch on this Node, else the undici package), milestones and no content', async () => {
    const server = await startScriptedServer(() => chatScript(), { http2: true });
    try {
      const h2ByDefault = fetchProtocol === '2.0' && canTrustAtRunTime;
      const client = new OpenAI({
        baseURL: `${server.url}/v1`,
        apiKey: CANARY,
        maxRetries: 0,
        ...(h2ByDefault
          ? {}
          : { fetch: undici.fetch as never, fetchOptions: { dispatcher: agent } as never }),
      });
      const stream = await client.chat.completions.create({
        model: 'gpt-h2',
        messages: [{ role: 'user', content: `question ${CANARY}` }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      assert.equal(text, `Hello ${CANARY} world`, 'the application reads the same text');
      assert.deepEqual(server.protocols, ['2.0']);
      const [span] = h.finishedSpans();
      assert.ok(span);
      assertMilestones(span, server, createdAt.at(-1) as number, 25);
      assert.equal(span.attributes['lanewatch.attempt'], '1', 'from x-stainless-retry-count');
      const exported = await exportedText(h);
      assert.ok(!exported.includes(CANARY), 'no prompt, response, reasoning or key anywhere');
    } finally {
      await server.close();
    }
  });

  it('outcomes over h2: truncated, a reset stream, a caller abort, a 429 — and nothing of the content', async () => {
    const url = (server: ScriptedServer) => `${server.url}/v1/chat/completions?key=${CANARY}`;
    const init = {
      method: 'POST',
      body: body(),
      headers: { authorization: `Bearer ${CANARY}` },
      dispatcher: agent,
    };
    let server = await startScriptedServer(() => chatScript({ done: false }), { http2: true });
    try {
      await (await undici.fetch(url(server), init)).text();
      assert.equal(h.finishedSpans()[0]?.attributes['lanewatch.outcome'], 'truncated');
    } finally {
      await server.close();
    }

    // RST_STREAM (INTERNAL_ERROR) after the pieces: the stream is reset, the connection stays.
    server = await startScriptedServer(() => chatScript({ done: false, reset: true }), { http2: true });
    try {
      const res = await undici.fetch(url(server), init);
      await assert.rejects(res.text());
      await waitFor(() => h.finishedSpans().length === 2);
      const span = h.finishedSpans()[1];
      assert.equal(span?.attributes['lanewatch.outcome'], 'error');
      assert.equal(span?.attributes['error.type'], 'connection_reset');
      assert.ok(
        spanMs(span as ReadableSpan, 'first_text') !== undefined,
        'milestones before the reset are kept',
      );
    } finally {
      await server.close();
    }

    server = await startScriptedServer(() => chatScript({ base: 10 }), { http2: true });
    try {
      const controller = new AbortController();
      const res = await undici.fetch(url(server), { ...init, signal: controller.signal });
      const reader = res.body?.getReader();
      await reader?.read();
      controller.abort();
      await assert.rejects(async () => {
        while (!(await reader?.read())?.done) {}
      });
      await waitFor(() => h.finishedSpans().length === 3);
      const span = h.finishedSpans()[2];
      assert.equal(span?.attributes['lanewatch.outcome'], 'cancelled');
      assert.equal(span?.attributes['error.type'], undefined);
    } finally {
      await server.close();
    }

    server = await startScriptedServer(
      () => ({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '1' },
        pieces: [
          { at: 5, bytes: JSON.stringify({ error: { message: CANARY, type: 'rate_limit_exceeded' } }) },
        ],
      }),
      { http2: true },
    );
    try {
      const res = await undici.fetch(url(server), init);
      assert.equal(res.status, 429);
      await res.text();
      const span = h.finishedSpans()[3];
      assert.equal(span?.attributes['lanewatch.outcome'], 'error');
      assert.equal(span?.attributes['error.type'], 'rate_limited');
      assert.deepEqual(
        span?.events.map((e) => e.name),
        [MILESTONE_EVENT.headers, MILESTONE_EVENT.end],
      );
    } finally {
      await server.close();
    }

    const exported = await exportedText(h);
    assert.ok(!exported.includes(CANARY), 'no prompt, response, key or query string anywhere');
  });

  it('leaves non-LLM traffic over h2 alone', async () => {
    const server = await startScriptedServer(
      () => ({ headers: { 'content-type': 'application/json' }, pieces: [{ at: 1, bytes: '{"ok":true}' }] }),
      { http2: true },
    );
    try {
      await (await undici.fetch(`${server.url}/health`, { dispatcher: agent })).text();
      await (
        await undici.fetch(`${server.url}/api/things`, { method: 'POST', body: '{}', dispatcher: agent })
      ).text();
      assert.deepEqual(server.protocols, ['2.0', '2.0']);
      assert.equal(h.finishedSpans().length, 0);
    } finally {
      await server.close();
    }
  });
});
