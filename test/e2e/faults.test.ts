// Faults on the same local pipeline as pipeline.test.ts (DESIGN §5), each with what a user would
// notice: the processor down (the collector retries, nothing crashes, data flows again), Redis
// restarted empty (hints back within one evaluation interval), the collector down (the app sees no
// error and its memory stays bounded; cumulative metrics lose nothing once it is back).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MILESTONE_SERIES, PROCESSOR_SERIES } from '../../grafana/src/series.ts';
import { type PrivateRedis, startPrivateRedis } from '../stack/index.ts';
import { makeCanaries } from './canaries.ts';
import { type CallResult, residentBytes } from './instrumented-app.ts';
import { eventually, type PipelineStack, startPipeline } from './pipeline-stack.ts';
import { keysUnderPrefix, laneRecord } from './redis-keys.ts';

const SERVICE = 'lanewatch-e2e-faults';
const INTERVAL_S = 5;
const LANE = 'steady';
/** Calls made with the collector up (the control), then down, in batches, measuring the app after each. */
const BATCHES = 8;
const BATCH_CALLS = 300;

interface LaneRecord {
  samples: number;
  updated_at: string;
}

describe('faults', { timeout: 240_000 }, () => {
  let redis: PrivateRedis;
  let stack: PipelineStack;
  let callsMade = 0;

  /** `count` calls on the lane; the app must see each answered, and nothing thrown. */
  async function calls(count: number, concurrency = 8): Promise<CallResult> {
    const result = await stack.app.calls(stack.lane(LANE).call, count, concurrency);
    callsMade += count;
    assert.deepEqual(result.failures, {}, 'the app saw exceptions');
    assert.deepEqual(result.statuses, { 200: count });
    return result;
  }

  const record = () => laneRecord<LaneRecord>(redis.port, stack.prefix, LANE);

  /** Calls of the lane that reached Prometheus (the end histogram counts every call). */
  async function callsInPrometheus(): Promise<number> {
    const [sample] = await stack.prometheus.query(
      `sum(histogram_count(${MILESTONE_SERIES.end}{job="${SERVICE}", lanewatch_lane="${LANE}"}))`,
    );
    return Number(sample?.value?.[1] ?? 0);
  }

  before(async () => {
    redis = await startPrivateRedis();
    stack = await startPipeline({
      canaries: makeCanaries(),
      // Fast calls (≈ 0.2 s): many of them in little time for the memory measurement.
      lanes: [
        {
          lane: LANE,
          profile: 'steady',
          format: 'openai-chat',
          model: 'steady-chat',
          knobs: { outputTokensMin: 10, outputTokensMax: 30 },
        },
      ],
      timeScale: 0.2,
      serviceName: SERVICE,
      redisPort: redis.port,
      processor: { intervalS: INTERVAL_S, windowS: 300, sliceS: 10, minSamples: 20 },
      exposeGc: true,
    });
    await calls(100);
    await eventually('the first hints', async () => ((await record())?.samples ?? 0) >= 100 || undefined);
  });

  after(async () => {
    await stack?.stop();
    await redis?.stop();
  });

  test('processor down: the collector retries, nothing crashes, and data flows again after a restart', async () => {
    await stack.stopProcessor();
    const before = await callsInPrometheus();
    await calls(100);
    // The other branch of the pipeline is untouched: Prometheus gets every call meanwhile.
    await eventually('the calls made while the processor is down, in Prometheus', async () =>
      (await callsInPrometheus()) === callsMade ? true : undefined,
    );
    assert.ok(callsMade > before);
    await eventually('the collector retrying the processor export', async () =>
      /Will retry[^\n]*"otelcol\.component\.id": "otlp_http\/processor"/.test(stack.collector.readLog())
        ? true
        : undefined,
    );
    assert.ok(stack.collector.process.running, 'the collector is running');
    assert.equal((await fetch(stack.collector.healthUrl)).status, 200, 'and healthy');

    const restartedAt = Date.now();
    await stack.startProcessorAgain();
    await calls(50);
    const fresh = await eventually('a record written by the restarted processor', async () => {
      const current = await record();
      return current !== undefined && Date.parse(current.updated_at) > restartedAt && current.samples >= 50
        ? current
        : undefined;
    });
    assert.ok(fresh.samples >= 50);
    // What the collector queued while the processor was down has left its queue.
    await eventually('the collector’s processor queue drained', async () => {
      const text = await (await fetch(stack.collector.metricsUrl)).text();
      const queued = /otelcol_exporter_queue_size\{[^}]*exporter="otlp_http\/processor"[^}]*\} (\d+)/.exec(
        text,
      );
      return queued !== null && queued[1] === '0' ? true : undefined;
    });
    assert.ok(stack.app.process.running && stack.collector.process.running);
  });

  test('Redis restarted empty: the hints are back within one evaluation interval', async (t) => {
    assert.ok((await keysUnderPrefix(redis.port, stack.prefix)).length > 0, 'hints before the restart');
    await redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await redis.start();
    const back = performance.now();
    await eventually(
      'the lane record and the index back in Redis',
      async () => {
        const keys = (await keysUnderPrefix(redis.port, stack.prefix)).map((k) => k.key);
        return keys.includes(`{${stack.prefix}}:lane:${LANE}`) && keys.includes(`{${stack.prefix}}:lanes`)
          ? true
          : undefined;
      },
      INTERVAL_S * 1000,
    );
    const tookMs = performance.now() - back;
    t.diagnostic(`hints back ${Math.round(tookMs)} ms after Redis answered again (interval ${INTERVAL_S} s)`);
    assert.ok(tookMs <= INTERVAL_S * 1000, `hints back after ${Math.round(tookMs)} ms`);
    assert.ok(stack.processor.process.running, 'the processor kept running');
  });

  test('collector down: the app sees no error, its memory stays bounded, and nothing is lost once it is back', async (t) => {
    /** BATCHES × BATCH_CALLS calls, the app's RSS (/proc) and live heap (after a full GC) after each batch. */
    const measure = async () => {
      const rss: number[] = [];
      const heap: number[] = [];
      for (let batch = 0; batch < BATCHES; batch++) {
        await calls(BATCH_CALLS, 16);
        rss.push(await residentBytes(stack.app.process.pid));
        const memory = await stack.app.memory();
        assert.ok(memory.collected, 'the app runs with --expose-gc');
        heap.push(memory.heapUsed);
      }
      return { rss, heap };
    };
    const mib = (values: readonly number[]) => values.map((bytes) => (bytes / 2 ** 20).toFixed(1)).join(', ');
    // The control, same run, same app: as many calls with the collector up. RSS climbs for a few
    // thousand calls whatever the collector does (JIT, pools, V8 growing its heap), then levels off.
    const up = await measure();
    await stack.stopCollector();
    const down = await measure();
    const series =
      `after each ${BATCH_CALLS} calls — RSS MiB, collector up: ${mib(up.rss)}; down: ${mib(down.rss)}; ` +
      `live heap MiB, up: ${mib(up.heap)}; down: ${mib(down.heap)}`;
    t.diagnostic(series);
    // What is live while every export fails is bounded: the SDK holds at most its span queue (2048
    // spans) and the export being retried, so it fills during the first half and then stops growing:
    // under 1 KiB per call over the second half, and far less than the calls' own traffic overall.
    const half = BATCHES / 2;
    const secondHalfGrowth = Math.max(...down.heap.slice(half)) - Math.max(...down.heap.slice(0, half));
    assert.ok(
      secondHalfGrowth < half * BATCH_CALLS * 1024,
      `live heap grew ${secondHalfGrowth} B; ${series}`,
    );
    const heldWhileDown = Math.max(...down.heap) - Math.max(...up.heap);
    assert.ok(heldWhileDown < 16 * 2 ** 20, `live heap ${heldWhileDown} B above the control; ${series}`);
    // Nor does RSS, beyond a margin for what V8 and the allocator keep once grown.
    const rssGrowth = Math.max(...down.rss) - Math.max(...up.rss);
    assert.ok(rssGrowth < 64 * 2 ** 20, `RSS grew ${rssGrowth} B with the collector down; ${series}`);

    await stack.startCollectorAgain();
    // Cumulative temporality: the first export to the new collector carries every call made meanwhile.
    await eventually('every call in Prometheus again', async () =>
      (await callsInPrometheus()) === callsMade ? true : undefined,
    );
    const [state] = await stack.prometheus.query(
      `${PROCESSOR_SERIES.laneStateCode}{lanewatch_lane="${LANE}"}`,
    );
    assert.ok(state !== undefined, 'the processor’s own metrics reach Prometheus');
  });
});
