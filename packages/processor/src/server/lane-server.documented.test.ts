import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { createLaneFeed } from '../feed/lane-feed.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { waitUntil } from '../wait.test-helper.ts';
import { createLaneServer } from './lane-server.ts';
import { startProcessor } from './processor.ts';

// The HTTP table of the README: what /healthz reports about live-feed clients, what a stalled client
// gets, and the 400 for a lane name that cannot be decoded.

/** One record per lane and round, about 20 kB, the round in its last reason. */
function recordsOf(base: Readonly<Record<string, LaneHealth>>, round: number): LaneHealth[] {
  return Object.values(base).map((record) => ({
    ...record,
    reasons: [...Array.from({ length: 200 }, (_, k) => `padding ${k} ${'x'.repeat(80)}`), `round ${round}`],
  }));
}

describe('the processor over HTTP', () => {
  it('/healthz counts the clients of the live feed', async () => {
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      intervalS: 3600,
      windowS: 300,
    });
    const streams = async () =>
      ((await (await fetch(`${processor.url}/healthz`)).json()) as { streams: number }).streams;
    try {
      assert.equal(await streams(), 0);
      const controller = new AbortController();
      const stream = await fetch(`${processor.url}/v1/lanes/stream`, { signal: controller.signal });
      const reader = stream.body?.getReader();
      await reader?.read(); // the snapshot
      assert.equal(await streams(), 1);
      controller.abort();
      await reader?.cancel().catch(() => undefined);
      await waitUntil('the stream to be counted out', async () => (await streams()) === 0);
    } finally {
      await processor.close();
    }
  });

  it('a live-feed client stalled for 60 s is disconnected, and a reconnect starts with a fresh snapshot', async () => {
    const feed = createLaneFeed();
    // The server's clock is moved by hand past the README's 60 s; heartbeats (which check) every 20 ms.
    let clock = Date.now();
    const http = createLaneServer({ feed, now: () => clock, stream: { heartbeatMs: 20 } });
    http.server.listen(0, '127.0.0.1');
    await once(http.server, 'listening');
    const { port } = http.server.address() as AddressInfo;
    const base = { a: exampleRecord('a'), b: exampleRecord('b') };
    const socket = connect(port, '127.0.0.1');
    try {
      await once(socket, 'connect');
      socket.write('GET /v1/lanes/stream HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      socket.pause();
      await waitUntil('the stream to open', () => http.streams().length === 1);
      for (let round = 0; round < 400 && http.streams()[0]?.blocked !== true; round++) {
        feed.publish(recordsOf(base, round));
        await sleep(0);
      }
      assert.equal(http.streams()[0]?.blocked, true, 'the client stopped taking data');
      feed.publish(recordsOf(base, 9999));
      clock += 59_000;
      await sleep(200);
      assert.equal(http.streams().length, 1, 'still connected after 59 s');
      clock += 2_000;
      await waitUntil('the stalled client to be disconnected', () => http.streams().length === 0);
      const ended = once(socket, 'close');
      socket.resume();
      await ended;

      const response = await fetch(`http://127.0.0.1:${port}/v1/lanes/stream`);
      const reader = response.body?.getReader();
      let text = '';
      while (!text.includes('\n\n')) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        text += Buffer.from(chunk.value).toString('utf8');
      }
      await reader?.cancel();
      assert.match(text, /^retry: \d+\nevent: snapshot\n/);
      const snapshot = JSON.parse(text.split('\ndata: ')[1]?.split('\n\n')[0] ?? '{}') as {
        lanes: LaneHealth[];
      };
      assert.deepEqual(
        snapshot.lanes.map((r) => [r.lane, r.reasons.at(-1)]),
        [
          ['a', 'round 9999'],
          ['b', 'round 9999'],
        ],
      );
    } finally {
      socket.destroy();
      http.server.closeAllConnections();
      http.server.close();
    }
  });

  it('a lane name that is not valid percent-encoding is answered 400, saying so', async () => {
    const http = createLaneServer({ feed: createLaneFeed([exampleRecord('a')]) });
    http.server.listen(0, '127.0.0.1');
    await once(http.server, 'listening');
    const { port } = http.server.address() as AddressInfo;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/v1/lanes/openai%2`);
      assert.equal(response.status, 400);
      assert.deepEqual(await response.json(), { error: 'the lane name is not valid percent-encoding' });
    } finally {
      http.server.close();
    }
  });
});
