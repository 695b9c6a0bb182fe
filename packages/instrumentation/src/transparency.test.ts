import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { MeterProvider } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import fc from 'fast-check';
import { request } from 'undici';
import { type Harness, pointsOf, sse, startHarness, startScriptedServer } from '../test/harness.ts';
import { openaiChat } from './formats/openai-chat.ts';
import { LanewatchInstrumentation } from './instrumentation.ts';
import { MILESTONE_METRIC } from './names.ts';

/** A server whose handler is set per test; it listens once for the whole file. */
async function startRawServer(): Promise<{
  url: string;
  server: Server;
  handle: (h: Parameters<typeof createServer>[1]) => void;
}> {
  let current: Parameters<typeof createServer>[1] = (_req, res) => res.end();
  const server = createServer((req, res) => current?.(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, handle: (h) => (current = h) };
}

const post = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{"model":"m","stream":true}',
};

describe(`transparency on Node ${process.version}`, () => {
  let h: Harness;
  let raw: Awaited<ReturnType<typeof startRawServer>>;
  before(async () => {
    h = startHarness();
    raw = await startRawServer();
  });
  after(async () => {
    raw.server.closeAllConnections();
    raw.server.close();
    await h.shutdown();
  });
  beforeEach(() => h.reset());

  it('the application receives byte-identical bodies however the stream is split', async () => {
    // Valid SSE with multi-byte UTF-8, CR/LF/CRLF endings and comments, plus arbitrary bytes.
    const sseBody = fc
      .array(
        fc.record({
          text: fc.string({ unit: 'grapheme', maxLength: 40 }),
          eol: fc.constantFrom('\n', '\r\n', '\r'),
          comment: fc.boolean(),
        }),
        { minLength: 1, maxLength: 30 },
      )
      .map((events) =>
        Buffer.from(
          `${events
            .map(({ text, eol, comment }) =>
              comment
                ? `: ping${eol}${eol}`
                : `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}${eol}${eol}`,
            )
            .join('')}data: [DONE]\n\n`,
        ),
      );
    const anyBytes = fc.uint8Array({ minLength: 0, maxLength: 4096 }).map((b) => Buffer.from(b));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(sseBody, anyBytes),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (bytes, cuts) => {
          const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort(
            (a, b) => a - b,
          );
          raw.handle((req, res) => {
            req.resume();
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            res.socket?.setNoDelay(true);
            let from = 0;
            const pieces = [...points, bytes.length].map((to) => {
              const piece = bytes.subarray(from, to);
              from = to;
              return piece;
            });
            const write = (i: number) => {
              if (i === pieces.length) return res.end();
              if ((pieces[i]?.length ?? 0) > 0) res.write(pieces[i]);
              setImmediate(() => write(i + 1));
            };
            write(0);
          });
          const viaFetch = Buffer.from(
            await (await fetch(`${raw.url}/v1/chat/completions`, post)).arrayBuffer(),
          );
          const viaUndici = Buffer.from(
            await (await request(`${raw.url}/v1/chat/completions`, post)).body.arrayBuffer(),
          );
          assert.ok(viaFetch.equals(bytes), 'fetch body identical');
          assert.ok(viaUndici.equals(bytes), 'undici.request body identical');
        },
      ),
      { numRuns: 40 },
    );
    assert.ok(h.finishedSpans().length >= 80, 'and every call was observed');
  });

  it('backpressure is untouched: a paused reader stops the server from writing', async () => {
    const chunk = Buffer.from(sse({ choices: [{ index: 0, delta: { content: 'x'.repeat(16 * 1024) } }] }));
    let written = 0;
    let blocked = false;
    raw.handle((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (written < 256 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) {
            blocked = true;
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      pump();
      res.on('close', () => res.destroy());
    });
    const controller = new AbortController();
    const res = await fetch(`${raw.url}/v1/chat/completions`, { ...post, signal: controller.signal });
    const reader = res.body?.getReader();
    await reader?.read();
    await new Promise((r) => setTimeout(r, 500));
    const whilePaused = written;
    controller.abort();
    await reader?.cancel().catch(() => {});
    assert.ok(blocked, 'the server saw backpressure');
    assert.ok(
      whilePaused < 32 * 1024 * 1024,
      `only socket and stream buffers filled (${(whilePaused / 2 ** 20).toFixed(1)} MiB)`,
    );
  });

  it('the body is never buffered: memory stays flat while 1 GiB streams through', async (t) => {
    const event = Buffer.from(sse({ choices: [{ index: 0, delta: { content: 'y'.repeat(64 * 1024) } }] }));
    const total = 1024 * 1024 * 1024;
    raw.handle((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += event.length;
          if (!res.write(event)) return void res.once('drain', pump);
        }
        res.end('data: [DONE]\n\n');
      };
      pump();
    });
    // Live memory, not garbage: a full collection before each reading, so what is counted is what
    // something still holds. A buffered body would hold up to 1 GiB here; garbage V8 has not yet
    // collected (which depends on the machine's heap limits) is not counted. V8 frees the buffers a
    // collection found dead on a thread of its own, and `arrayBuffers` counts them until it has: a
    // reading taken at once counted up to ~70 MiB of them at random (Node 24 and 26 alike), so one
    // turn of the event loop and a second collection come before each reading.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const live = async () => {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const base = await live();
    const readings: number[] = [];
    let received = 0;
    let nextReading = 32 * 1024 * 1024;
    const res = await fetch(`${raw.url}/v1/chat/completions`, post);
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      received += part.byteLength;
      if (received >= nextReading) {
        nextReading += 32 * 1024 * 1024;
        readings.push((await live()) - base);
      }
    }
    assert.ok(received >= total, 'the whole stream arrived');
    // What is in flight (a socket read, the server's write queue in this same process, the partial
    // 64 KiB event the detector holds) is a few MiB at any reading; a body held anywhere would climb
    // by 32 MiB a reading and stay.
    const mib = readings.map((r) => r / 2 ** 20);
    const median = [...mib].sort((a, b) => a - b)[Math.floor(mib.length / 2)] ?? Number.NaN;
    const shown = mib.map((r) => r.toFixed(1)).join(' ');
    t.diagnostic(`live heap + buffers over the start, MiB, every 32 MiB received: ${shown}`);
    assert.ok(readings.length >= 30, 'a reading every 32 MiB');
    assert.ok(median < 8, `live heap + buffers: median growth ${median.toFixed(1)} MiB (readings: ${shown})`);
    assert.ok(Math.max(...mib) < 32, `live heap + buffers never grew by 32 MiB (readings: ${shown})`);
    const [span] = h.finishedSpans();
    assert.equal(span?.attributes['lanewatch.outcome'], 'ok');
    assert.ok((span?.attributes['lanewatch.chunks'] as number) > 16_000);
  });

  it('an exception inside the instrumentation never reaches the application', async () => {
    const original = openaiChat.createDetector;
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    const server = await startScriptedServer(() => ({
      pieces: [
        { at: 2, bytes: sse({ choices: [{ index: 0, delta: { content: 'a' } }] }) },
        { at: 4, bytes: 'data: [DONE]\n\n' },
      ],
    }));
    try {
      (openaiChat as { createDetector: typeof original }).createDetector = () => ({
        feed() {
          throw new TypeError('detector exploded');
        },
        end() {},
      });
      const res = await fetch(`${server.url}/v1/chat/completions`, post);
      assert.equal(
        await res.text(),
        `${sse({ choices: [{ index: 0, delta: { content: 'a' } }] })}data: [DONE]\n\n`,
      );
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(uncaught, []);
      assert.ok(
        h.diagnostics.some((d) => d.includes('TypeError')),
        'reported through the OTel diag logger',
      );
    } finally {
      (openaiChat as { createDetector: typeof original }).createDetector = original;
      process.off('uncaughtException', onUncaught);
      await server.close();
    }
  });

  it('a meter provider that throws costs the application nothing', async () => {
    const broken = {
      getMeter: () => ({
        createHistogram: () => ({
          record: () => {
            throw new Error('exporter backend exploded');
          },
        }),
      }),
    } as unknown as MeterProvider;
    h.instrumentation.setMeterProvider(broken);
    const server = await startScriptedServer(() => ({ pieces: [{ at: 1, bytes: 'data: [DONE]\n\n' }] }));
    try {
      const res = await fetch(`${server.url}/v1/chat/completions`, post);
      assert.equal(await res.text(), 'data: [DONE]\n\n');
      assert.ok(h.diagnostics.some((d) => d.includes('lanewatch failed')));
    } finally {
      await server.close();
    }
  });
});

describe('beside @opentelemetry/instrumentation-undici and a second lanewatch instance', () => {
  it('one lanewatch span and one count per call, and the HTTP span too', async () => {
    const h = startHarness();
    const undiciInstrumentation = new UndiciInstrumentation();
    const second = new LanewatchInstrumentation({ enabled: false });
    const server = await startScriptedServer(() => ({
      pieces: [
        { at: 2, bytes: sse({ choices: [{ index: 0, delta: { content: 'a' } }] }) },
        { at: 4, bytes: 'data: [DONE]\n\n' },
      ],
    }));
    try {
      undiciInstrumentation.setTracerProvider(h.tracerProvider);
      second.enable(); // as if `register` and an SDK setup both made one
      await (await fetch(`${server.url}/v1/chat/completions`, post)).text();
      const spans = h.finishedSpans();
      const ours = spans.filter((s) => s.instrumentationScope.name === '@lanewatch/instrumentation');
      assert.equal(ours.length, 1, 'one lanewatch span');
      assert.equal(spans.length, 2, 'and the HTTP span of instrumentation-undici');
      const collected = await h.collect();
      const [duration] = pointsOf(collected, MILESTONE_METRIC.end);
      assert.ok(duration, 'a duration point');
      assert.equal((duration.value as { count: number }).count, 1, 'counted once');
    } finally {
      undiciInstrumentation.disable();
      second.disable();
      await server.close();
      await h.shutdown();
    }
  });
});
