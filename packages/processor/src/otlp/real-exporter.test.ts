import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ATTR, MILESTONE_METRIC } from '@lanewatch/instrumentation';
import { OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { LaneWindows } from '../aggregation/lane-windows.ts';
import { relativeErrorAt } from '../histogram/exponential-mapping.ts';
import { assertQuantilesWithinBound } from '../histogram/quantile-bound.test-helper.ts';
import { lognormalSamples } from '../histogram/random-samples.ts';
import { createMetricsHandler } from './metrics-handler.ts';

// The receiver against the real OpenTelemetry JS exporters: an app's MeterProvider with an
// exponential-histogram View exports cumulative points twice; the window must hold exactly what
// was recorded, with quantiles within the bound of the exact ones.

const windows = new LaneWindows();
const rejections: number[] = [];
let server: Server;
let url: string;

before(async () => {
  const handler = createMetricsHandler({
    ingest: (batch) => {
      const result = windows.ingest(batch);
      rejections.push(batch.rejected + result.rejected);
      return result;
    },
    accepts: windows.accepts,
  });
  server = createServer((req, res) => {
    if (req.url === '/v1/metrics') void handler(req, res);
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`;
});

after(async () => {
  server.close();
  await once(server, 'close');
});

async function exportTwice(lane: string, exporter: PushMetricExporter, first: number[], second: number[]) {
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({
    readers: [reader],
    views: [
      {
        instrumentName: MILESTONE_METRIC.first_text,
        aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM },
      },
    ],
  });
  const histogram = provider
    .getMeter('@lanewatch/instrumentation')
    .createHistogram(MILESTONE_METRIC.first_text, {
      unit: 's',
    });
  const attributes = {
    [ATTR.lane]: lane,
    [ATTR.outcome]: 'ok',
    [ATTR.sizeClass]: 's',
    [ATTR.attempt]: '1',
    [ATTR.providerName]: 'openai',
    [ATTR.requestModel]: 'gpt-4o-mini',
  };
  for (const v of first) histogram.record(v, attributes);
  await provider.forceFlush();
  for (const v of second) histogram.record(v, attributes);
  await provider.forceFlush();
  await provider.shutdown();
}

describe('real OpenTelemetry JS exporters', () => {
  const first = lognormalSamples(300, 501);
  const second = [...lognormalSamples(150, 502, Math.log(1.5), 0.6), 0.001, 42];
  const all = [...first, ...second];

  for (const [lane, make] of [
    ['via-protobuf-gzip', () => new ProtoExporter({ url, compression: CompressionAlgorithm.GZIP })],
    ['via-json', () => new JsonExporter({ url })],
  ] as const) {
    it(`counts each sample once across two cumulative exports (${lane})`, async () => {
      await exportTwice(lane, make(), first, second);
      const observation = windows.observe().find((o) => o.lane === lane && o.sizeClass === undefined);
      assert.ok(observation, 'the lane is observed');
      const d = observation.ok.first_text;
      assert.ok(d);
      assert.equal(d.count, all.length);
      assert.ok(Math.abs((d.sum ?? 0) - all.reduce((s, v) => s + v, 0)) < 1e-6);
      // 0.001 s … 42 s span 15 doublings: the SDK's 160 buckets hold them at scale 3.
      assert.equal(d.relativeError, relativeErrorAt(3));
      assertQuantilesWithinBound(all, (q) => d.quantile(q), d.relativeError, lane);
      assert.deepEqual(observation.models, ['gpt-4o-mini']);
      assert.ok(rejections.every((r) => r === 0));
    });
  }
});
