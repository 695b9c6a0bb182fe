import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'redis';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { freePort } from '../wait.test-helper.ts';
import { startPrivateRedis } from './private-redis.test-helper.ts';
import { redisLayout } from './redis-layout.ts';
import { createRedisStore } from './redis-store.ts';

// Against the real Redis on 127.0.0.1:6379 (REDIS_URL to point elsewhere), each test under its own
// key prefix, removed afterwards. The restart test runs a Redis of its own on a free port.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let sequence = 0;
const prefixes: string[] = [];

function testPrefix(): string {
  const prefix = `lanewatch-test-${process.pid}-${++sequence}`;
  prefixes.push(prefix);
  return prefix;
}

async function redisAvailable(): Promise<boolean> {
  const client = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false, connectTimeout: 1000 } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    await client.close();
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(20);
  }
}

const available = await redisAvailable();
const REQUIRE = process.env.CI === 'true' || process.env.LANEWATCH_REQUIRE_REDIS === '1';

describe('redis store', { skip: !available && !REQUIRE ? `no Redis at ${REDIS_URL}` : false }, () => {
  after(async () => {
    const client = createClient({ url: REDIS_URL });
    client.on('error', () => undefined);
    await client.connect();
    for (const prefix of prefixes) {
      for await (const keys of client.scanIterator({ MATCH: `{${prefix}}:*`, COUNT: 100 })) {
        if (keys.length > 0) await client.del(keys);
      }
    }
    await client.close();
  });

  it('writes one key per lane with a TTL past the expiry, an index set, and publishes every record', async () => {
    const prefix = testPrefix();
    const layout = redisLayout(prefix);
    const url = `${REDIS_URL}?prefix=${prefix}`;
    const writer = await createRedisStore({ url, retentionS: 120 });
    const reader = await createRedisStore({ url });
    const heard: LaneHealth[] = [];
    const stop = await reader.watch((r) => heard.push(r));
    await waitFor(async () => {
      await writer.write([exampleRecord('fast', { ttlS: 60 }), exampleRecord('slow', { medianS: 3 })]);
      return writer.status().connected;
    });
    await waitFor(() => heard.length >= 2);
    assert.deepEqual(heard.map((r) => r.lane).slice(0, 2), ['fast', 'slow']);

    const raw = createClient({ url: REDIS_URL });
    raw.on('error', () => undefined);
    await raw.connect();
    assert.deepEqual((await raw.sMembers(layout.indexKey)).sort(), ['fast', 'slow']);
    const ttl = await raw.pTTL(layout.laneKey('fast'));
    assert.ok(ttl > 150_000 && ttl <= 180_000, `TTL ${ttl} ms = expiry 60 s + retention 120 s`);
    assert.equal(JSON.parse((await raw.get(layout.laneKey('slow'))) ?? '{}').lane, 'slow');
    await raw.close();

    assert.deepEqual((await reader.readAll()).map((r) => r.lane).sort(), ['fast', 'slow']);
    assert.equal((await reader.read('slow'))?.lane, 'slow');
    assert.equal(await reader.read('none'), undefined);
    await stop();
    await writer.close();
    await reader.close();
  });

  it('keeps every key of a deployment in one Cluster slot (one hash tag)', () => {
    const layout = redisLayout('lanewatch');
    const tags = [layout.laneKey('a'), layout.laneKey('openai/gpt-x'), layout.indexKey, layout.channel].map(
      (k) => /\{([^}]*)\}/.exec(k)?.[1],
    );
    assert.deepEqual(tags, ['lanewatch', 'lanewatch', 'lanewatch', 'lanewatch']);
    assert.throws(() => redisLayout('has}brace'), /must be 1–64 letters/);
  });

  it('never rejects while Redis is unreachable, and serves what it has from memory', async () => {
    const errors: string[] = [];
    const store = await createRedisStore({
      url: 'redis://127.0.0.1:1?prefix=unreachable',
      connectWaitMs: 200,
      onError: (e) => errors.push(e.name),
    });
    const record = exampleRecord('kept');
    await store.write([record]);
    assert.equal(store.status().connected, false);
    assert.equal((await store.read('kept'))?.lane, 'kept');
    assert.deepEqual(
      (await store.readAll()).map((r) => r.lane),
      ['kept'],
    );
    await store.close();
  });

  it('after a Redis restart, reconnects, writes every lane again and re-publishes', async (t) => {
    const binary = spawnSync('redis-server', ['--version']).status === 0 ? 'redis-server' : undefined;
    if (!binary) {
      t.skip('no redis-server binary to restart');
      return;
    }
    const port = await freePort();
    const start = () => startPrivateRedis(port);
    let server = await start();
    const url = `redis://127.0.0.1:${port}?prefix=restart`;
    const store = await createRedisStore({ url });
    const reader = await createRedisStore({ url });
    const heard: string[] = [];
    const stop = await reader.watch((r) => heard.push(r.lane));
    try {
      await waitFor(async () => {
        await store.write([exampleRecord('a'), exampleRecord('b')]);
        return store.status().connected;
      });
      await waitFor(() => heard.length >= 2);

      server.kill('SIGKILL');
      await once(server, 'exit');
      await waitFor(() => !store.status().connected);
      await store.write([exampleRecord('c')]);
      assert.deepEqual(
        (await store.readAll()).map((r) => r.lane).sort(),
        ['a', 'b', 'c'],
        'served from memory',
      );

      heard.length = 0;
      server = await start();
      await waitFor(() => store.status().connected, 10_000);
      await waitFor(() => heard.length >= 3, 10_000);
      assert.deepEqual([...new Set(heard)].sort(), ['a', 'b', 'c'], 're-published after the restart');
      const raw = createClient({ url: `redis://127.0.0.1:${port}` });
      await raw.connect();
      assert.deepEqual((await raw.sMembers(redisLayout('restart').indexKey)).sort(), ['a', 'b', 'c']);
      await raw.close();
    } finally {
      await stop();
      await store.close();
      await reader.close();
      server.kill('SIGKILL');
    }
  });
});
