import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { createLaneServer } from '../server/lane-server.ts';
import { createLaneFeed } from './lane-feed.ts';

function bigRecord(lane: string, i: number): LaneHealth {
  // About 20 kB each: reasons padded so a few hundred of them would be megabytes.
  const record = exampleRecord(lane, { now: 1_000_000 + i });
  return {
    ...record,
    reasons: Array.from({ length: 200 }, (_, k) => `reason ${k} of round ${i} padding ${'x'.repeat(60)}`),
  };
}

async function listen(feed = createLaneFeed(), stream = {}) {
  const http = createLaneServer({ feed, stream });
  http.server.listen(0, '127.0.0.1');
  await once(http.server, 'listening');
  const { port } = http.server.address() as AddressInfo;
  return { http, feed, port };
}

/** Reads events until `enough(events)`, or the stream ends. */
async function readEvents(
  url: string,
  enough: (events: string[]) => boolean,
  signal?: AbortSignal,
): Promise<string[]> {
  const response = await fetch(url, signal ? { signal } : {});
  assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = response.body?.getReader();
  assert.ok(reader);
  const decoder = new TextDecoder();
  let buffer = '';
  const events: string[] = [];
  while (!enough(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      events.push(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return events;
}

describe('GET /v1/lanes/stream', () => {
  it('sends a snapshot on connect, then every new record, and heartbeats', async () => {
    const { http, feed, port } = await listen(createLaneFeed([exampleRecord('a')]), { heartbeatMs: 50 });
    // Read until both have come, in whichever order a busy machine delivers them.
    const eventsPromise = readEvents(
      `http://127.0.0.1:${port}/v1/lanes/stream`,
      (events) =>
        events.some((e) => e.startsWith('event: lane')) && events.some((e) => e.startsWith(': heartbeat ')),
    );
    await sleep(100);
    feed.publish([exampleRecord('b')]);
    const events = await eventsPromise;
    const snapshot = events[0] ?? '';
    assert.match(snapshot, /^retry: 2000\nevent: snapshot\nid: 1\ndata: /);
    const lanes = JSON.parse(snapshot.split('\ndata: ')[1] ?? '{}').lanes as {
      lane: string;
      stale: boolean;
    }[];
    assert.deepEqual(
      lanes.map((l) => l.lane),
      ['a'],
    );
    assert.equal(typeof lanes[0]?.stale, 'boolean');
    assert.ok(
      events.some((e) => e.startsWith(': heartbeat ')),
      'a heartbeat comment',
    );
    const lane = events.find((e) => e.startsWith('event: lane'));
    assert.ok(lane, 'a lane event');
    assert.equal(JSON.parse(lane.split('\ndata: ')[1] ?? '{}').lane, 'b');
    http.server.closeAllConnections();
    http.server.close();
  });

  it('holds at most one record per lane for a client that does not read, then catches it up', async () => {
    const { http, feed, port } = await listen();
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write(`GET /v1/lanes/stream HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
    socket.pause();
    await sleep(50);
    // 600 records × ~20 kB = ~12 MB offered to a client that reads nothing.
    for (let i = 0; i < 200; i++) {
      feed.publish([bigRecord('a', i), bigRecord('b', i), bigRecord('c', i)]);
      await sleep(0);
    }
    const [stats] = http.streams();
    assert.ok(stats, 'one stream open');
    assert.equal(stats.blocked, true);
    assert.ok(stats.pendingLanes <= 3, `pending ${stats.pendingLanes} lanes`);
    assert.ok(stats.bufferedBytes < 1024 * 1024, `buffered ${stats.bufferedBytes} bytes`);

    // Now read everything: the last record of each lane must arrive.
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    socket.resume();
    const last = /"reason 0 of round 199 padding/g;
    for (let i = 0; i < 200 && text.match(last)?.length !== 3; i++) await sleep(20);
    for (const lane of ['a', 'b', 'c']) {
      assert.ok(text.includes(`"lane":"${lane}"`), `lane ${lane} delivered`);
    }
    assert.equal(text.match(last)?.length, 3, 'the latest record of each of the three lanes');
    socket.destroy();
    http.server.closeAllConnections();
    http.server.close();
  });
});
