import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { callsIn, observationOf, simulateLane } from '../evaluation/simulated-calls.ts';
import { parseLanesFile } from '../lanes-file/lanes-file.ts';
import { createFileStore, type LaneHealthDocument } from '../store/file-store.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import type { LaneWindows } from './observation-source.ts';
import { startProcessor } from './processor.ts';

const T0 = Date.parse('2026-11-30T08:00:00Z');

/** Stands in for aggregation: two simulated lanes, and a count of the batches it was given. */
function fakeWindows(): LaneWindows & { batches: number } {
  const fast = simulateLane({
    seed: 1,
    startMs: T0 - 300_000,
    endMs: T0,
    callsPerSecond: 2,
    medianS: 0.3,
    sigma: 0.5,
  });
  const slash = simulateLane({
    seed: 2,
    startMs: T0 - 300_000,
    endMs: T0,
    callsPerSecond: 2,
    medianS: 0.6,
    sigma: 0.5,
  });
  const windows = {
    batches: 0,
    ingest() {
      windows.batches += 1;
      return { rejected: 0, errors: [] };
    },
    observe(now: number) {
      return [
        { window: observationOf('fast', callsIn(fast, now, 300), 300, now) },
        { window: observationOf('openai/gpt-x', callsIn(slash, now, 300), 300, now) },
      ];
    },
  };
  return windows;
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('processor server', () => {
  it('serves every lane, one lane, healthz and 404s, from one evaluation round', async () => {
    let clock = T0;
    const windows = fakeWindows();
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      lanes: parseLanesFile('lanes:\n  fast: {can_hold_secret: true, rank: 0}\n  idle: {}\n', 'lanes.yaml'),
      windows,
      intervalS: 3600,
      windowS: 300,
      now: () => clock,
    });
    try {
      await processor.loop.evaluateNow();
      const all = await getJson(`${processor.url}/v1/lanes`);
      assert.equal(all.status, 200);
      const lanes = all.body.lanes as { lane: string; state: string; stale: boolean }[];
      assert.deepEqual(
        lanes.map((l) => [l.lane, l.state, l.stale]),
        [
          ['fast', 'healthy', false],
          ['idle', 'unknown', false],
          ['openai/gpt-x', 'healthy', false],
        ],
      );
      const one = await getJson(`${processor.url}/v1/lanes/fast`);
      assert.equal(one.body.lane, 'fast');
      assert.equal((one.body.scorecard as { can_hold_secret: boolean }).can_hold_secret, true);
      assert.equal((await getJson(`${processor.url}/v1/lanes/openai%2Fgpt-x`)).body.lane, 'openai/gpt-x');
      assert.equal((await getJson(`${processor.url}/v1/lanes/openai/gpt-x`)).body.lane, 'openai/gpt-x');
      const missing = await getJson(`${processor.url}/v1/lanes/nope`);
      assert.equal(missing.status, 404);
      assert.match(String(missing.body.error), /no lane named "nope"/);
      const health = await getJson(`${processor.url}/healthz`);
      assert.equal(health.body.status, 'ok');
      assert.equal(health.body.lanes, 3);
      assert.equal(health.body.last_evaluation_at, '2026-11-30T08:00:00.000Z');
      assert.deepEqual(health.body.store, { kind: 'memory', connected: true, last_error: null });
      assert.equal((await fetch(`${processor.url}/v1/lanes`, { method: 'DELETE' })).status, 405);

      clock += 61_000; // past expires_at (ttl 60 s) with no new round: stale, never fresh
      const later = (await getJson(`${processor.url}/v1/lanes/fast`)).body;
      assert.equal(later.stale, true);
    } finally {
      await processor.close();
    }
  });

  it('hands POST /v1/metrics to the OTLP receiver, which feeds the windows', async () => {
    const windows = fakeWindows();
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      windows,
      intervalS: 3600,
      windowS: 300,
    });
    try {
      const body = {
        resourceMetrics: [
          {
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'gen_ai.client.operation.duration',
                    exponentialHistogram: {
                      aggregationTemporality: 1,
                      dataPoints: [
                        {
                          attributes: [{ key: 'lanewatch.lane', value: { stringValue: 'fast' } }],
                          timeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
                          count: '1',
                          sum: 0.5,
                          scale: 3,
                          zeroCount: '0',
                          positive: { offset: 0, bucketCounts: ['1'] },
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          },
        ],
      };
      const response = await fetch(`${processor.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200);
      assert.equal(windows.batches, 1);
      const bad = await fetch(`${processor.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{not json',
      });
      assert.equal(bad.status, 400);
    } finally {
      await processor.close();
    }
  });

  it('answers 404 on POST /v1/metrics when no windows are wired', async () => {
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      intervalS: 3600,
      windowS: 300,
    });
    try {
      const response = await fetch(`${processor.url}/v1/metrics`, { method: 'POST', body: '{}' });
      assert.equal(response.status, 404);
    } finally {
      await processor.close();
    }
  });

  it('writes the last records on graceful shutdown, and the next start resumes from them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'processor-'));
    const path = join(dir, 'lane-health.json');
    try {
      let clock = T0;
      const processor = await startProcessor({
        port: 0,
        host: '127.0.0.1',
        store: await createFileStore({ path }),
        windows: fakeWindows(),
        intervalS: 3600,
        windowS: 300,
        now: () => clock,
      });
      clock += 5_000;
      await processor.close();
      const doc = JSON.parse(await readFile(path, 'utf8')) as LaneHealthDocument;
      assert.equal(doc.lanes.fast?.updated_at, '2026-11-30T08:00:05.000Z', 'one last round at shutdown');

      const again = await startProcessor({
        port: 0,
        host: '127.0.0.1',
        store: await createFileStore({ path }),
        intervalS: 3600,
        windowS: 300,
        now: () => clock,
      });
      const served = (await getJson(`${again.url}/v1/lanes/fast`)).body;
      assert.equal(served.state, 'healthy', 'served from the store before the first round');
      await again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
