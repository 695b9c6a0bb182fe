import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import type { LaneHealthView } from '../evaluation/lane-health.ts';
import { startProcessor } from '../server/processor.ts';
import { createFileStore } from '../store/file-store.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { createRedisStore } from '../store/redis-store.ts';
import { createLaneReader } from './lane-reader.ts';

const NOW = Date.parse('2026-11-30T08:00:00Z');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(20);
  }
}

/** Fresh at NOW (expires NOW + 60 s), stale at NOW + 61 s: the same verdict from every source. */
async function assertStaleness(source: string, clock: { now: number }) {
  const reader = await createLaneReader(source, { now: () => clock.now });
  try {
    clock.now = NOW;
    const fresh = await reader.lanes();
    assert.deepEqual(
      fresh.map((v) => [v.lane, v.stale]),
      [
        ['a', false],
        ['b', false],
      ],
    );
    assert.equal((await reader.lane('a'))?.stale, false);
    clock.now = NOW + 61_000;
    assert.equal((await reader.lane('a'))?.stale, true);
    assert.ok((await reader.lanes()).every((v) => v.stale));
    assert.equal(await reader.lane('missing'), undefined);
  } finally {
    await reader.close();
  }
}

const records = () => [exampleRecord('a', { now: NOW }), exampleRecord('b', { now: NOW })];

describe('createLaneReader', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('reads a file store, with stale judged on its own clock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reader-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const store = await createFileStore({ path: join(dir, 'lane-health.json') });
    await store.write(records());
    await assertStaleness(`file:${join(dir, 'lane-health.json')}`, { now: NOW });
  });

  it('reads a processor over HTTP, and follows its live feed', async () => {
    const clock = { now: NOW };
    const store = createMemoryStore();
    await store.write(records());
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store,
      intervalS: 3600,
      windowS: 300,
      now: () => clock.now,
    });
    cleanups.push(() => processor.close());
    await assertStaleness(processor.url, clock);

    clock.now = NOW;
    const reader = await createLaneReader(processor.url, { now: () => clock.now });
    const seen: LaneHealthView[] = [];
    const stop = await reader.watch((v) => seen.push(v));
    await waitFor(() => processor.feed.listenerCount === 1); // connected, its snapshot sent
    processor.feed.publish([exampleRecord('c', { now: NOW })]);
    await waitFor(() => seen.some((v) => v.lane === 'c'));
    await stop();
    await reader.close();
    // Every new record, as the file and Redis sources tell them: not the snapshot of what there was.
    assert.deepEqual(
      seen.map((v) => v.lane),
      ['c'],
    );
  });

  it('over HTTP, reads a lane named like the live feed (stream)', async () => {
    const store = createMemoryStore();
    await store.write([exampleRecord('stream', { now: NOW })]);
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store,
      intervalS: 3600,
      windowS: 300,
    });
    const reader = await createLaneReader(processor.url, { now: () => NOW });
    try {
      assert.equal((await reader.lane('stream'))?.lane, 'stream');
    } finally {
      await reader.close();
      await processor.close();
    }
  });

  it('over HTTP, a watch that reconnects tells what changed while it was away, and only that', async () => {
    const store = createMemoryStore();
    await store.write(records());
    const options = { host: '127.0.0.1', intervalS: 3600, windowS: 300, now: () => NOW };
    let processor = await startProcessor({ ...options, port: 0, store });
    const port = Number(new URL(processor.url).port);
    const reader = await createLaneReader(processor.url, { now: () => NOW, onError: () => undefined });
    const seen: string[] = [];
    const stop = await reader.watch((v) => seen.push(`${v.lane} ${v.updated_at}`));
    try {
      await waitFor(() => processor.feed.listenerCount === 1);
      await processor.close();
      // While it is away, lane a is evaluated again; b is as it was.
      const later = exampleRecord('a', { now: NOW + 5000 });
      await store.write([later]);
      processor = await startProcessor({ ...options, port, store });
      await waitFor(() => seen.length > 0);
      await sleep(100);
      assert.deepEqual(seen, [`a ${later.updated_at}`]);
    } finally {
      await stop();
      await reader.close();
      await processor.close();
    }
  });

  it('answers from what it last read when the processor goes away', async () => {
    const store = createMemoryStore();
    await store.write(records());
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store,
      intervalS: 3600,
      windowS: 300,
    });
    const errors: string[] = [];
    const reader = await createLaneReader(processor.url, {
      now: () => NOW,
      onError: (e) => errors.push(e.name),
    });
    assert.equal((await reader.lanes()).length, 2);
    await processor.close();
    assert.equal((await reader.lanes()).length, 2);
    assert.ok(errors.length > 0);
    await reader.close();
  });

  it('reads Redis and never writes to it', async (t) => {
    const probe = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false } });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
    } catch {
      t.skip(`no Redis at ${REDIS_URL}`);
      return;
    }
    const prefix = `lanewatch-test-reader-${process.pid}`;
    cleanups.push(async () => {
      for await (const keys of probe.scanIterator({ MATCH: `{${prefix}}:*` }))
        if (keys.length) await probe.del(keys);
      await probe.close();
    });
    const url = `${REDIS_URL}?prefix=${prefix}`;
    const writer = await createRedisStore({ url });
    await writer.write(records());
    assert.equal(writer.status().connected, true);
    await assertStaleness(url, { now: NOW });
    await writer.close();
  });

  it('refuses a source it does not know, saying which ones it does', async () => {
    await assert.rejects(createLaneReader('ftp://x'), /is not one of file:.*redis:.*http:/);
  });

  it('names a source it refuses without its user, password or query', async () => {
    const SECRET = 'CANARY-c07e';
    const cases: [string, string][] = [
      [`ftp://user:${SECRET}@h/x?key=${SECRET}`, 'a ftp: URL'],
      [`sk-${SECRET}`, 'a value that is not a URL'],
    ];
    for (const [source, shown] of cases) {
      await assert.rejects(createLaneReader(source), (error: Error) => {
        assert.equal(
          error.message,
          `lane source ${shown} is not one of file:./lane-health.json, redis://host:6379 or http://host:4320`,
        );
        return true;
      });
    }
  });
});
