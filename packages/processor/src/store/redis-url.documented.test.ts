import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createServer as createTlsServer } from 'node:tls';
import { createClient } from 'redis';
import { serve } from '../cli/serve-in-process.test-helper.ts';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import { killAll, lanewatch } from '../probe/cli-process.test-helper.ts';
import { createLaneReader } from '../reader/lane-reader.ts';
import { freePort, waitUntil } from '../wait.test-helper.ts';
import { startPrivateRedis } from './private-redis.test-helper.ts';
import { redisLayout } from './redis-layout.ts';
import { createRedisStore } from './redis-store.ts';

// The store URL forms of the README (`redis://host:6379[/db][?prefix=NAME]`, `rediss://…`) against the
// real Redis on 127.0.0.1:6379, each test under a key prefix of its own, removed afterwards.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DB = 5;
const LANE = `documented-${process.pid}`;

async function redisAvailable(): Promise<boolean> {
  const client = createClient({ url: REDIS_URL, socket: { reconnectStrategy: false, connectTimeout: 1000 } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.close();
    return true;
  } catch {
    return false;
  }
}

const available = await redisAvailable();
const REQUIRE = process.env.CI === 'true' || process.env.LANEWATCH_REQUIRE_REDIS === '1';
const prefixes: string[] = [];
function testPrefix(name: string): string {
  const prefix = `lanewatch-test-${name}-${process.pid}`;
  prefixes.push(prefix);
  return prefix;
}

let dir: string;
let lanesFile: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'redis-url-'));
  lanesFile = join(dir, 'lanes.yaml');
  await writeFile(lanesFile, `lanes:\n  ${LANE}: {}\n`);
});
after(async () => {
  killAll();
  if (available) {
    for (const db of [0, DB]) {
      const client = createClient({ url: REDIS_URL, database: db });
      client.on('error', () => undefined);
      await client.connect();
      for (const prefix of prefixes) {
        for await (const keys of client.scanIterator({ MATCH: `{${prefix}}:*`, COUNT: 100 })) {
          if (keys.length > 0) await client.del(keys);
        }
      }
      // Only this run's lane under the default prefix (written if ?prefix= were ignored): the rest is not ours.
      const defaults = redisLayout();
      await client.del(defaults.laneKey(LANE));
      await client.sRem(defaults.indexKey, LANE);
      await client.close();
    }
  }
  await rm(dir, { recursive: true, force: true });
});

describe('redis store URLs', {
  concurrency: true,
  skip: !available && !REQUIRE ? `no Redis at ${REDIS_URL}` : false,
}, () => {
  it('redis://host:6379/db?prefix=NAME: serve writes its lanes into that database under {NAME}, and readers of that URL find them', async () => {
    const prefix = testPrefix('db');
    const url = `${REDIS_URL}/${DB}?prefix=${prefix}`;
    const run = serve(['--lanes', lanesFile, '--store', url]);
    assert.equal(await run.stop(), 0, run.err.join(''));

    const layout = redisLayout(prefix);
    const inDb = createClient({ url: REDIS_URL, database: DB });
    const inZero = createClient({ url: REDIS_URL, database: 0 });
    for (const client of [inDb, inZero]) {
      client.on('error', () => undefined);
      await client.connect();
    }
    try {
      assert.equal(JSON.parse((await inDb.get(layout.laneKey(LANE))) ?? '{}').lane, LANE);
      assert.deepEqual(await inDb.sMembers(layout.indexKey), [LANE]);
      assert.equal(await inDb.exists(redisLayout().laneKey(LANE)), 0, 'not under the default {lanewatch}');
      assert.equal(await inZero.exists(layout.laneKey(LANE)), 0, 'not in database 0');
    } finally {
      await inDb.close();
      await inZero.close();
    }

    const reader = await createLaneReader(url);
    const elsewhere = await createLaneReader(`${REDIS_URL}?prefix=${prefix}`);
    try {
      assert.equal((await reader.lane(LANE))?.state, 'unknown');
      assert.equal(await elsewhere.lane(LANE), undefined, 'database 0 holds nothing of it');
    } finally {
      await reader.close();
      await elsewhere.close();
    }
  });

  it('rediss://: serve reaches Redis over TLS, trusting the CA in NODE_EXTRA_CA_CERTS', async (t) => {
    if (spawnSync('openssl', ['version']).status !== 0) {
      t.skip('no openssl to make a certificate');
      return;
    }
    const made = spawnSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1'],
        ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'ignore' },
    );
    assert.equal(made.status, 0, 'openssl made a certificate');
    // A TLS front for the plain Redis, as a TLS-terminating proxy or a managed Redis would be.
    const redis = new URL(REDIS_URL);
    let secure = 0;
    const sockets = new Set<{ destroy(): void }>();
    const front = createTlsServer(
      { key: await readFile(join(dir, 'key.pem')), cert: await readFile(join(dir, 'cert.pem')) },
      (socket) => {
        secure += 1;
        const upstream = connectTcp(Number(redis.port || 6379), redis.hostname);
        sockets.add(socket).add(upstream);
        socket.pipe(upstream).pipe(socket);
        const end = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      },
    );
    front.listen(0, '127.0.0.1');
    await once(front, 'listening');
    const port = (front.address() as { port: number }).port;

    const prefix = testPrefix('tls');
    const run = lanewatch(
      [
        'serve',
        '--port',
        '0',
        '--lanes',
        lanesFile,
        '--interval',
        '0.2',
        '--store',
        `rediss://127.0.0.1:${port}?prefix=${prefix}`,
      ],
      { env: { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') }, limitMs: 30_000 },
    );
    const raw = createClient({ url: REDIS_URL });
    raw.on('error', () => undefined);
    await raw.connect();
    let done: Awaited<typeof run.finished>;
    try {
      await waitUntil(
        'the lane written through TLS',
        async () => (await raw.exists(redisLayout(prefix).laneKey(LANE))) === 1,
        10_000,
      );
      assert.ok(secure > 0, 'a TLS connection reached the front');
    } finally {
      run.child.kill('SIGTERM');
      await raw.close();
      done = await run.finished;
      for (const socket of sockets) socket.destroy();
      front.close();
    }
    assert.equal(done.code, 0, done.stderr);
    assert.doesNotMatch(done.stderr, /serving from memory/);
  });

  it('a reader never writes: after Redis loses its data, the lanes it read are not put back', async (t) => {
    if (spawnSync('redis-server', ['--version']).status !== 0) {
      t.skip('no redis-server binary to restart');
      return;
    }
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}?prefix=reader`;
    const raw = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: () => 50 } });
    raw.on('error', () => undefined);
    const start = () => startPrivateRedis(port);
    let server = await start();
    const reader = await createLaneReader(url);
    try {
      const writer = await createRedisStore({ url });
      await writer.write([exampleRecord('a'), exampleRecord('b')]);
      await writer.close();
      assert.deepEqual(
        (await reader.lanes()).map((v) => v.lane),
        ['a', 'b'],
      );

      server.kill('SIGKILL');
      await once(server, 'exit');
      server = await start();
      await raw.connect();
      const index = redisLayout('reader').indexKey;
      // Either the reader reconnects and finds nothing, or it put its lanes back.
      await waitUntil(
        'the reader back on the empty Redis',
        async () => (await reader.lanes()).length === 0 || (await raw.exists(index)) === 1,
        10_000,
      );
      assert.equal(await raw.exists(index), 0, 'the reader wrote its lanes back');
      assert.deepEqual(await raw.keys('{reader}*'), []);
    } finally {
      await reader.close();
      if (raw.isOpen) await raw.close();
      server.kill('SIGKILL');
    }
  });
});
