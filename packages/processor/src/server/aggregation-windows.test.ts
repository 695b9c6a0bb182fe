import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryStore } from '../store/memory-store.ts';
import { createAggregationWindows } from './aggregation-windows.ts';
import { startProcessor } from './processor.ts';

/** An OTLP/JSON export of `count` delta calls of one lane, every milestone in the bucket (0.5, 1] s. */
function exportOf(lane: string, count: number, timeMs: number, outcome = 'ok') {
  const point = {
    attributes: [
      { key: 'lanewatch.lane', value: { stringValue: lane } },
      { key: 'lanewatch.outcome', value: { stringValue: outcome } },
    ],
    startTimeUnixNano: String(BigInt(timeMs - 5000) * 1_000_000n),
    timeUnixNano: String(BigInt(timeMs) * 1_000_000n),
    count: String(count),
    sum: 0.75 * count,
    scale: 0,
    zeroCount: '0',
    // scale 0: bucket index i holds (2^i, 2^(i+1)]; index −1 is (0.5, 1].
    positive: { offset: -1, bucketCounts: [String(count)] },
  };
  const names = [
    'lanewatch.time_to_headers',
    'gen_ai.client.operation.time_to_first_chunk',
    'lanewatch.time_to_first_output',
    'gen_ai.client.operation.duration',
  ];
  return {
    resourceMetrics: [
      {
        scopeMetrics: [
          {
            metrics: names.map((name) => ({
              name,
              exponentialHistogram: { aggregationTemporality: 1, dataPoints: [point] },
            })),
          },
        ],
      },
    ],
  };
}

describe('OTLP in → windows → evaluation → lanes out', () => {
  it('turns posted exponential histograms into a lane record with the window and the newest slices', async () => {
    let clock = Date.parse('2026-11-30T08:00:00Z');
    const now = () => clock;
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      windows: createAggregationWindows({ windowS: 300, sliceS: 10, now }),
      intervalS: 3600,
      windowS: 300,
      now,
    });
    try {
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${processor.url}/v1/metrics`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(exportOf('fast', 40, clock)),
        });
        assert.equal(response.status, 200);
        clock += 15_000;
      }
      const [record] = await processor.loop.evaluateNow();
      assert.ok(record);
      assert.equal(record.lane, 'fast');
      assert.equal(record.samples, 120);
      assert.equal(record.state, 'healthy');
      const p50 = record.quantiles.time_to_first_output?.p50 ?? 0;
      assert.ok(p50 > 0.5 && p50 <= 1, `p50 ${p50} inside the one bucket`);
      assert.ok(record.relative_error > 0, 'quantiles from histograms carry their error bound');
      assert.equal(record.hedge.milestone, 'time_to_first_output');
    } finally {
      await processor.close();
    }
  });
});
