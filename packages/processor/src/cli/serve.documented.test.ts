import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { createLaneReader } from '../reader/lane-reader.ts';
import type { LaneHealthDocument } from '../store/file-store.ts';
import { freePort, waitUntil } from '../wait.test-helper.ts';
import { serve } from './serve-in-process.test-helper.ts';

// `lanewatch serve` in this process, driven by its flags and variables as the README's options table
// documents them; each test reads back what a user would see: HTTP answers, records, output.

let dir: string;
let lanesFile: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'serve-documented-'));
  lanesFile = join(dir, 'lanes.yaml');
  await writeFile(lanesFile, 'lanes:\n  local: {can_hold_secret: true}\n');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Serves until stopped at once: the shutdown round writes one record per configured lane. */
async function lastRecord(name: string, args: readonly string[], env: Record<string, string> = {}) {
  const path = join(dir, `${name}.json`);
  const run = serve(['--lanes', lanesFile, '--store', `file:${path}`, ...args], env);
  assert.equal(await run.stop(), 0, run.err.join(''));
  const doc = JSON.parse(await readFile(path, 'utf8')) as LaneHealthDocument;
  const record = doc.lanes.local;
  assert.ok(record, `no record for the lane in ${path}`);
  return { record, path, ttlMs: Date.parse(record.expires_at) - Date.parse(record.updated_at) };
}

describe('lanewatch serve, as its README documents it', { concurrency: true }, () => {
  it('--token / LANEWATCH_TOKEN: POST /v1/metrics without the bearer token is answered 401, with it 200; the token is never printed', async () => {
    const TOKEN = 'tok-CANARY-5b9e';
    const WRONG = 'tok-WRONG-CANARY-0c1d';
    for (const [args, env] of [
      [['--token', TOKEN], {}],
      [[], { LANEWATCH_TOKEN: TOKEN }],
    ] as const) {
      const run = serve(args, env);
      try {
        const url = await run.url();
        const post = (headers: Record<string, string>) =>
          fetch(`${url}/v1/metrics`, {
            method: 'POST',
            body: '{}',
            headers: { 'content-type': 'application/json', ...headers },
          });
        const none = await post({});
        await none.arrayBuffer();
        assert.equal(none.status, 401);
        assert.equal(none.headers.get('www-authenticate'), 'Bearer');
        const wrong = await post({ authorization: `Bearer ${WRONG}` });
        const wrongBody = await wrong.text();
        assert.equal(wrong.status, 401);
        assert.ok(!wrongBody.includes(WRONG) && !wrongBody.includes(TOKEN), wrongBody);
        const right = await post({ authorization: `Bearer ${TOKEN}` });
        await right.arrayBuffer();
        assert.equal(right.status, 200);
        const lanes = await fetch(`${url}/v1/lanes`);
        await lanes.arrayBuffer();
        assert.equal(lanes.status, 200, 'only POST /v1/metrics needs the token');
      } finally {
        assert.equal(await run.stop(), 0);
      }
      const printed = run.out.join('') + run.err.join('');
      assert.ok(!printed.includes(TOKEN) && !printed.includes(WRONG), printed);
    }
  });

  it('--ttl / LANEWATCH_RECORD_TTL_S: a record expires that many seconds after it is written, then reads as stale', async () => {
    const flag = await lastRecord('ttl-flag', ['--ttl', '5']);
    assert.equal(flag.ttlMs, 5000);
    const updatedAt = Date.parse(flag.record.updated_at);
    const at = (ms: number) => createLaneReader(`file:${flag.path}`, { now: () => updatedAt + ms });
    const before = await at(4000);
    const after = await at(6000);
    try {
      assert.equal((await before.lane('local'))?.stale, false);
      assert.equal((await after.lane('local'))?.stale, true, 'past --ttl with no newer record: stale');
    } finally {
      await before.close();
      await after.close();
    }
    assert.equal((await lastRecord('ttl-env', [], { LANEWATCH_RECORD_TTL_S: '7' })).ttlMs, 7000);
  });

  it('without --ttl, a record lives max(60, 3 × interval) seconds', async () => {
    assert.equal((await lastRecord('ttl-default', [])).ttlMs, 60_000);
    assert.equal((await lastRecord('ttl-interval', ['--interval', '25'])).ttlMs, 75_000);
  });

  it('--min-samples, LANEWATCH_WINDOW_S and LANEWATCH_SLICE_S reach the records: min_samples, window_s and the reason', async () => {
    const { record } = await lastRecord('window', ['--min-samples', '7'], {
      LANEWATCH_WINDOW_S: '60',
      LANEWATCH_SLICE_S: '5',
    });
    assert.equal(record.min_samples, 7);
    assert.equal(record.window_s, 60);
    assert.equal(record.state, 'unknown');
    assert.equal(record.reasons[0], '0 samples, fewer than min_samples 7');
  });

  it('--interval: every lane is evaluated again each interval', async () => {
    const run = serve(['--lanes', lanesFile, '--interval', '0.2']);
    try {
      const url = await run.url();
      const updates = new Set<string>();
      // The default interval is 10 s: two rounds within 5 s come from --interval.
      await waitUntil('two evaluation rounds', async () => {
        const response = await fetch(`${url}/v1/lanes/local`);
        if (response.status === 200) updates.add(((await response.json()) as LaneHealth).updated_at);
        else await response.arrayBuffer();
        return updates.size >= 2;
      });
      const health = (await (await fetch(`${url}/healthz`)).json()) as { last_evaluation_at: string | null };
      assert.notEqual(health.last_evaluation_at, null);
    } finally {
      assert.equal(await run.stop(), 0);
    }
  });

  it('--host / LANEWATCH_HOST: listens on that address only, and says so', async () => {
    const run = serve(['--host', '127.0.0.2']);
    try {
      const url = await run.url();
      const { port } = new URL(url);
      assert.equal(url, `http://127.0.0.2:${port}`);
      const health = await fetch(`${url}/healthz`);
      assert.equal(((await health.json()) as { status: string }).status, 'ok');
      const elsewhere = await fetch(`http://127.0.0.1:${port}/healthz`).catch((e: Error) => e);
      assert.ok(elsewhere instanceof Error, 'nothing answers on 127.0.0.1');
      assert.equal((elsewhere.cause as { code?: string } | undefined)?.code, 'ECONNREFUSED');
    } finally {
      assert.equal(await run.stop(), 0);
    }
    const v6 = serve([], { LANEWATCH_HOST: '::1' });
    try {
      const url = await v6.url();
      assert.match(url, /^http:\/\/\[::1\]:\d+$/);
      const health = await fetch(`${url}/healthz`);
      assert.equal(((await health.json()) as { status: string }).status, 'ok');
    } finally {
      assert.equal(await v6.stop(), 0);
    }
  });

  it('memory: serves from memory, and /healthz says so', async () => {
    const run = serve(['--store', 'memory:', '--lanes', lanesFile]);
    try {
      const url = await run.url();
      assert.match(run.out.join(''), /store memory;/);
      const health = (await (await fetch(`${url}/healthz`)).json()) as { store: unknown };
      assert.deepEqual(health.store, { kind: 'memory', connected: true, last_error: null });
    } finally {
      assert.equal(await run.stop(), 0);
    }
  });

  it('a restart resumes from the store: a lane keeps the state_since it had', async () => {
    const path = join(dir, 'restart.json');
    const args = ['--lanes', lanesFile, '--store', `file:${path}`];
    const first = serve(args);
    assert.equal(await first.stop(), 0);
    const since = (JSON.parse(await readFile(path, 'utf8')) as LaneHealthDocument).lanes.local;
    await sleep(20); // so that a relearnt state_since would differ
    const second = serve(args);
    assert.equal(await second.stop(), 0);
    const again = (JSON.parse(await readFile(path, 'utf8')) as LaneHealthDocument).lanes.local;
    assert.ok(since && again);
    assert.notEqual(again.updated_at, since.updated_at, 'a new round was written');
    assert.equal(again.state_since, since.state_since);
  });

  it('a store it cannot reach is named without its password or query', async () => {
    const PASSWORD = 'pw-CANARY-a41f';
    const port = await freePort();
    const run = serve(['--store', `redis://lanewatch:${PASSWORD}@127.0.0.1:${port}/0?prefix=q-CANARY`]);
    try {
      await run.url();
      await waitUntil('the store failure line', () => run.err.join('').includes('serving from memory'));
    } finally {
      assert.equal(await run.stop(), 0);
    }
    const printed = run.out.join('') + run.err.join('');
    assert.match(
      printed,
      /lanewatch: store redis:\/\/\S*127\.0\.0\.1:\d+\S*: ECONNREFUSED; serving from memory/,
    );
    assert.ok(!printed.includes(PASSWORD) && !printed.includes('q-CANARY'), printed);
  });

  it('a redis store URL with a bad ?prefix= exits 2 saying what the prefix must be', async () => {
    const run = serve(['--store', 'redis://127.0.0.1:6379?prefix=has}brace']);
    const code = await run.code.catch((error: Error) => `threw ${error.name}`);
    assert.equal(code, 2);
    assert.match(
      run.err.join(''),
      /^lanewatch serve: --store must be a redis:\/\/ URL whose \?prefix= is 1–64 letters/,
    );
  });

  it('a malformed --store is refused without printing the credentials in it', async () => {
    const PASSWORD = 'pw-CANARY-77e0';
    const run = serve(['--store', `redis:/lanewatch:${PASSWORD}@127.0.0.1:6379`]);
    assert.equal(await run.code, 2);
    assert.match(
      run.err.join(''),
      /^lanewatch serve: --store must be file:PATH, redis:\/\/host:6379 or memory:/,
    );
    assert.ok(!run.err.join('').includes(PASSWORD), run.err.join(''));
  });
});
