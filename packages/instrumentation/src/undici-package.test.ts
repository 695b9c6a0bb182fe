import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import {
  type Harness,
  type ScriptedServer,
  sse,
  startForwardProxy,
  startHarness,
  startScriptedServer,
} from '../test/harness.ts';
import { MILESTONE_EVENT } from './names.ts';

const ALL_EVENTS = Object.values(MILESTONE_EVENT);
const body = JSON.stringify({ model: 'gpt-pkg', stream: true, messages: [{ role: 'user', content: 'x' }] });

function chat() {
  const chunk = (delta: object) => sse({ model: 'gpt-pkg', choices: [{ index: 0, delta }] });
  return {
    headersAt: 5,
    pieces: [
      { at: 10, bytes: chunk({ role: 'assistant' }) },
      {
        at: 20,
        bytes: chunk({ tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: '{"a"' } }] }),
      },
      { at: 30, bytes: chunk({ content: 'hello' }) },
      { at: 35, bytes: 'data: [DONE]\n\n' },
    ],
  };
}

type Undici = typeof undici8;

/** Every way the undici package makes a request, against the same streaming server. */
function callers(u: Undici, url: string, proxy: string): Record<string, () => Promise<string>> {
  const target = `${url}/v1/chat/completions`;
  const opts = { method: 'POST' as const, body, headers: { 'content-type': 'application/json' } };
  const viaRequest = async (dispatcher?: undici8.Dispatcher) => {
    const res = await u.request(target, { ...opts, dispatcher });
    return await res.body.text();
  };
  return {
    'undici.request': () => viaRequest(),
    'undici.stream': async () => {
      const parts: Buffer[] = [];
      await u.stream(
        target,
        opts,
        () =>
          new Writable({
            write: (c, _e, cb) => {
              parts.push(c);
              cb();
            },
          }),
      );
      return Buffer.concat(parts).toString();
    },
    'undici.fetch': async () => (await u.fetch(target, opts)).text(),
    'new Agent()': () => withDispatcher(new u.Agent(), viaRequest),
    'new Pool()': () => withDispatcher(new u.Pool(url), viaRequest),
    'new Client()': () => withDispatcher(new u.Client(url), viaRequest),
    'fetch with { dispatcher: new Agent() }': () =>
      withDispatcher(new u.Agent(), async (d) => (await u.fetch(target, { ...opts, dispatcher: d })).text()),
    // Behind a company's HTTP proxy: the call is still the provider's, not the proxy's.
    'fetch through new ProxyAgent()': () =>
      withDispatcher(new u.ProxyAgent(proxy), async (d) =>
        (await u.fetch(target, { ...opts, dispatcher: d })).text(),
      ),
  };
}

async function withDispatcher<T>(
  d: undici8.Dispatcher,
  fn: (d: undici8.Dispatcher) => Promise<T>,
): Promise<T> {
  try {
    return await fn(d);
  } finally {
    await d.close();
  }
}

for (const [label, u] of [
  [`undici ${undici8Version()}`, undici8],
  ['undici 7', undici7 as unknown as Undici],
] as const) {
  describe(`the ${label} package on Node ${process.version}`, () => {
    let h: Harness;
    let server: ScriptedServer;
    let proxy: Awaited<ReturnType<typeof startForwardProxy>>;
    before(async () => {
      h = startHarness();
      server = await startScriptedServer(() => chat());
      proxy = await startForwardProxy();
    });
    after(async () => {
      await proxy.close();
      await server.close();
      await h.shutdown();
    });
    beforeEach(() => h.reset());

    for (const name of Object.keys(callers(u, 'http://127.0.0.1', 'http://127.0.0.1'))) {
      it(`${name}: one span with every milestone, tool call first`, async () => {
        const call = callers(u, server.url, proxy.url)[name];
        proxy.seen.length = 0;
        assert.ok(call);
        const text = await call();
        assert.ok(text.endsWith('data: [DONE]\n\n'), 'the body reached the caller whole');
        const spans = h.finishedSpans();
        assert.equal(spans.length, 1, 'exactly one span: no double counting');
        const [span] = spans;
        assert.deepEqual(
          span?.events.map((e) => e.name),
          ALL_EVENTS,
        );
        assert.equal(span?.attributes['lanewatch.output.kind'], 'tool_call');
        assert.equal(span?.attributes['lanewatch.outcome'], 'ok');
        assert.equal(span?.attributes['gen_ai.request.model'], 'gpt-pkg');
        assert.equal(span?.attributes['lanewatch.chunks'], 4);
        assert.equal(
          span?.attributes['server.port'],
          Number(new URL(server.url).port),
          'the provider, not a proxy',
        );
        if (name.includes('Proxy')) assert.equal(proxy.seen.length, 1, 'the call went through the proxy');
      });
    }
  });
}

function undici8Version(): string {
  return (undici8 as unknown as { default?: { version?: string } }).default?.version ?? '8';
}
