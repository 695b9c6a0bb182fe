import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  type Harness,
  pointsOf,
  type ScriptedServer,
  sse,
  startHarness,
  startScriptedServer,
} from '../test/harness.ts';
import { MILESTONE_METRIC, OTHER } from './names.ts';

// The options of `LanewatchInstrumentationConfig` that change what is recorded, each as a user of
// the class would notice it: in the spans and the points its SDK receives.

const CANARY = 'CANARY-options-5d1e';

function chat(model: string) {
  return () => ({
    headersAt: 2,
    pieces: [
      { at: 4, bytes: sse({ model, choices: [{ index: 0, delta: { content: `hi ${CANARY}` } }] }) },
      { at: 6, bytes: 'data: [DONE]\n\n' },
    ],
  });
}

async function call(server: ScriptedServer, path: string, model: string): Promise<void> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: CANARY }] }),
  });
  await res.text();
}

/** The attributes of each point of the duration histogram since the last collection. */
async function durationPoints(h: Harness): Promise<Array<Record<string, unknown>>> {
  h.instrumentation.flush();
  return pointsOf(await h.collect(), MILESTONE_METRIC.end).map((p) => p.attributes);
}

describe('maxAttributeValues', () => {
  let h: Harness | undefined;
  after(async () => {
    await h?.shutdown();
  });

  it('keeps the first N models, lanes and servers; later new ones, and any that is not an identifier, are `other`', async () => {
    h = startHarness({ maxAttributeValues: 2 });
    const models = ['m-1', 'm-2', 'm-3', 'm-1', `free text ${CANARY}`];
    for (const model of models) {
      const server = await startScriptedServer(chat(model));
      try {
        await call(server, '/v1/chat/completions', model);
      } finally {
        await server.close();
      }
    }
    // One point per distinct set: m-1 (twice), m-2, then `other` for m-3 and the free text.
    const points = await durationPoints(h);
    assert.deepEqual(points.map((p) => p['gen_ai.request.model']).sort(), ['m-1', 'm-2', OTHER]);
    assert.deepEqual(points.map((p) => p['lanewatch.lane']).sort(), ['openai/m-1', 'openai/m-2', OTHER]);
    const spans = h.finishedSpans();
    assert.deepEqual(
      spans.map((s) => s.attributes['gen_ai.request.model']),
      ['m-1', 'm-2', OTHER, 'm-1', OTHER],
    );
    assert.deepEqual(
      spans.map((s) => s.attributes['lanewatch.lane']),
      ['openai/m-1', 'openai/m-2', OTHER, 'openai/m-1', OTHER],
    );
    // Five servers, five ports, one address: the address is kept.
    assert.deepEqual(new Set(spans.map((s) => s.attributes['server.address'])), new Set(['127.0.0.1']));
    assert.ok(!JSON.stringify(spans.map((s) => s.attributes)).includes(CANARY));
  });
});

describe('unknownStreams', () => {
  // A POST to an endpoint lanewatch does not know, answered with an event stream.
  const unknown = () => ({
    headersAt: 2,
    headers: { 'content-type': 'text/event-stream' },
    pieces: [
      { at: 4, bytes: `data: ${CANARY}\n\n` },
      { at: 6, bytes: 'data: bye\n\n' },
    ],
  });

  for (const unknownStreams of [undefined, false]) {
    it(`${unknownStreams === undefined ? 'by default, an unknown POST that answers with SSE gets its first chunk and end' : 'false: an unknown POST that answers with SSE is left alone'}`, async () => {
      const h = startHarness(unknownStreams === undefined ? {} : { unknownStreams });
      const server = await startScriptedServer(unknown);
      try {
        await call(server, '/internal/generate', 'm-1');
        const points = await durationPoints(h);
        const spans = h.finishedSpans();
        if (unknownStreams === false) {
          assert.deepEqual(points, []);
          assert.deepEqual(spans, []);
          return;
        }
        assert.equal(points.length, 1);
        assert.equal(spans.length, 1);
        const [span] = spans;
        assert.deepEqual(
          span?.events.map((e) => e.name),
          ['lanewatch.headers', 'lanewatch.first_chunk', 'lanewatch.end'],
        );
        assert.equal(span?.attributes['lanewatch.chunks'], 2);
      } finally {
        await server.close();
        await h.shutdown();
      }
    });
  }
});

describe('spans', () => {
  it('false: no span, every histogram still recorded', async () => {
    const h = startHarness({ spans: false });
    const server = await startScriptedServer(chat('m-1'));
    try {
      await call(server, '/v1/chat/completions', 'm-1');
      h.instrumentation.flush();
      const collected = await h.collect();
      for (const name of Object.values(MILESTONE_METRIC)) {
        assert.equal(pointsOf(collected, name).length, 1, name);
      }
      assert.deepEqual(h.finishedSpans(), []);
    } finally {
      await server.close();
      await h.shutdown();
    }
  });
});
