import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  type ExponentialHistogram,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  PeriodicExportingMetricReader,
  type ScopeMetrics,
} from '@opentelemetry/sdk-metrics';
import { type Script, sse, startHarness, startScriptedServer } from '../test/harness.ts';
import { lanewatchViews } from './exponential-views.ts';
import { INSTRUMENTATION_SCOPE } from './names.ts';
import { OwnMeter, SET_ATTRIBUTE } from './own-meter.ts';
import { VERSION } from './version.ts';

/** An application's SDK with one reader, collecting lanewatch's own meter through its producer. */
function applicationSdk(temporality = AggregationTemporality.CUMULATIVE, maxSets?: number) {
  let held: Array<() => void> = [];
  const own = new OwnMeter(() => {
    for (const record of held) record();
    held = [];
  }, maxSets);
  const exporter = new InMemoryMetricExporter(temporality);
  const reader: PeriodicExportingMetricReader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: 3_600_000,
    metricProducers: [own.producerFor(() => reader)],
  });
  const provider = new MeterProvider({ readers: [reader] });
  // The application's own instrument, beside lanewatch's.
  provider.getMeter('app').createCounter('app.requests').add(1, { route: '/x' });
  const meter = own.meter(lanewatchViews());
  const histogram = meter.createHistogram('lanewatch.test_seconds', { unit: 's' });
  const record = (value: number, attributes: Attributes) =>
    histogram.record(value, own.sets.standIn(attributes));
  const collect = async (): Promise<MetricData[]> => {
    const { resourceMetrics, errors } = await reader.collect();
    assert.deepEqual(errors, []);
    state.lastScopes = resourceMetrics.scopeMetrics;
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
  };
  const state = {
    own,
    record,
    collect,
    hold: (fn: () => void) => held.push(fn),
    lastScopes: [] as ScopeMetrics[],
  };
  return state;
}

const A = Object.freeze({ 'lanewatch.lane': 'fast', 'lanewatch.outcome': 'ok', 'lanewatch.attempt': '1' });
const B = Object.freeze({ 'lanewatch.lane': 'slow', 'lanewatch.outcome': 'error', 'error.type': 'http_5xx' });

/** The histogram value of a point that must be there. */
function histogramOf(point: { value: unknown } | undefined): ExponentialHistogram {
  assert.ok(point, 'the point is there');
  return point.value as ExponentialHistogram;
}

function lanewatchMetric(metrics: MetricData[]): MetricData {
  const metric = metrics.find((m) => m.descriptor.name === 'lanewatch.test_seconds');
  assert.ok(metric, 'the own meter’s histogram is in the application’s collection');
  return metric;
}

describe('OwnMeter: lanewatch’s histograms through the application SDK’s readers', () => {
  it('every point carries its whole attribute set, never the stand-in; the app’s own metrics are untouched', async () => {
    const sdk = applicationSdk();
    for (const v of [0.1, 0.2, 0.4]) sdk.record(v, A);
    sdk.record(3, B);
    const metrics = await sdk.collect();
    const metric = lanewatchMetric(metrics);
    assert.equal(metric.dataPointType, DataPointType.EXPONENTIAL_HISTOGRAM, 'the views still apply');
    assert.equal(metric.aggregationTemporality, AggregationTemporality.CUMULATIVE);
    const byLane = new Map(metric.dataPoints.map((p) => [p.attributes['lanewatch.lane'], p]));
    assert.deepEqual(byLane.get('fast')?.attributes, A);
    assert.deepEqual(byLane.get('slow')?.attributes, B);
    const fast = histogramOf(byLane.get('fast'));
    assert.equal(fast.count, 3);
    assert.ok(Math.abs((fast.sum ?? 0) - 0.7) < 1e-9, `sum ${fast.sum}`);
    assert.equal(fast.min, 0.1);
    assert.equal(fast.max, 0.4);
    assert.equal(histogramOf(byLane.get('slow')).count, 1);
    assert.ok(
      metrics.every((m) => m.dataPoints.every((p) => !(SET_ATTRIBUTE in p.attributes))),
      'no point leaves with lanewatch.set',
    );
    const app = metrics.find((m) => m.descriptor.name === 'app.requests');
    assert.deepEqual(
      app?.dataPoints.map((p) => p.attributes),
      [{ route: '/x' }],
    );
  });

  it('sets with equal content are one series, as the SDK would keep them', async () => {
    const sdk = applicationSdk();
    sdk.record(1, A);
    sdk.record(2, { ...A }); // another object, the same attributes
    sdk.record(3, Object.fromEntries(Object.entries(A).reverse())); // another key order
    const points = lanewatchMetric(await sdk.collect()).dataPoints;
    assert.equal(points.length, 1);
    assert.equal(histogramOf(points[0]).count, 3);
  });

  it('past its limit of sets, new ones are recorded whole: still one series each, nothing dropped', async () => {
    const sdk = applicationSdk(AggregationTemporality.CUMULATIVE, 2);
    const lanes = ['a', 'b', 'c', 'd'];
    for (let round = 0; round < 2; round++) {
      for (const lane of lanes) sdk.record(1, { 'lanewatch.lane': lane, 'lanewatch.outcome': 'ok' });
    }
    const points = lanewatchMetric(await sdk.collect()).dataPoints;
    assert.deepEqual(points.map((p) => p.attributes['lanewatch.lane']).sort(), lanes);
    assert.ok(points.every((p) => (p.value as ExponentialHistogram).count === 2));
    assert.ok(points.every((p) => !(SET_ATTRIBUTE in p.attributes)));
  });

  it('follows the reader’s temporality: with delta, each collection has only what came since the last', async () => {
    const sdk = applicationSdk(AggregationTemporality.DELTA);
    sdk.record(1, A);
    sdk.record(2, A);
    const first = lanewatchMetric(await sdk.collect());
    assert.equal(first.aggregationTemporality, AggregationTemporality.DELTA);
    assert.equal(histogramOf(first.dataPoints[0]).count, 2);
    sdk.record(4, A);
    const second = lanewatchMetric(await sdk.collect());
    assert.equal(histogramOf(second.dataPoints[0]).count, 1);
    assert.equal(histogramOf(second.dataPoints[0]).sum, 4);
  });

  it('calls held back are recorded before each collection, so they are in it', async () => {
    const sdk = applicationSdk();
    sdk.hold(() => sdk.record(0.5, B));
    const points = lanewatchMetric(await sdk.collect()).dataPoints;
    assert.deepEqual(points[0]?.attributes, B);
  });

  it('every producer is made before the meter', () => {
    const own = new OwnMeter();
    own.meter([]);
    assert.throws(() => own.producerFor(() => undefined), /before the meter/);
  });

  it('the points come under lanewatch’s scope and version', async () => {
    const sdk = applicationSdk();
    sdk.record(1, A);
    await sdk.collect();
    assert.deepEqual(
      sdk.lastScopes.find((scope) =>
        scope.metrics.some((m) => m.descriptor.name === 'lanewatch.test_seconds'),
      )?.scope,
      { name: INSTRUMENTATION_SCOPE, version: VERSION, schemaUrl: undefined },
    );
  });
});

describe('LanewatchInstrumentation.metricProducer(): the own meter inside an SDK of your own', () => {
  const chunk = (delta: object) => sse({ model: 'gpt-test', choices: [{ index: 0, delta }] });
  const chat = (): Script => ({
    headersAt: 2,
    pieces: [
      { at: 4, bytes: chunk({ role: 'assistant' }) },
      { at: 6, bytes: chunk({ reasoning_content: 'thinking' }) },
      { at: 8, bytes: chunk({ content: 'hi' }) },
      { at: 10, bytes: sse({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }) },
      { at: 12, bytes: 'data: [DONE]\n\n' },
    ],
  });

  /** Two calls (one streamed, one answered 429) recorded one way; every point as [name, attributes, count]. */
  async function pointsRecorded(ownMeter: boolean, batchRecording = false): Promise<string[]> {
    let call = 0;
    const server = await startScriptedServer(() =>
      call++ === 0 ? chat() : { status: 429, headersAt: 1, pieces: [] },
    );
    const h = startHarness({ batchRecording }, { ownMeter });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ model: 'gpt-test', stream: true }),
        });
        await res.text();
      }
      return (await h.collect())
        .filter((m) => m.descriptor.name !== 'lanewatch.internal.flush')
        .flatMap((m) =>
          (m.dataPoints as Array<{ attributes: Attributes; value: unknown }>).map((p) =>
            JSON.stringify([
              m.descriptor.name,
              m.dataPointType,
              Object.entries(p.attributes).sort(([a], [b]) => a.localeCompare(b)),
              (p.value as ExponentialHistogram).count,
            ]),
          ),
        )
        .sort();
    } finally {
      await h.shutdown();
      await server.close();
    }
  }

  it('exports exactly the points the SDK’s own meter would, each with its whole attribute set', async () => {
    const viaSdk = await pointsRecorded(false);
    // Batched: the calls are still held when the reader collects, which records them first.
    const viaOwn = await pointsRecorded(true, true);
    assert.ok(viaSdk.length >= 10, `every histogram of both calls is there:\n${viaSdk.join('\n')}`);
    assert.ok(
      viaSdk.some((p) => p.includes('"error.type","rate_limited"')),
      'the failed call too',
    );
    assert.deepEqual(viaOwn, viaSdk);
    assert.ok(viaOwn.every((p) => !p.includes(SET_ATTRIBUTE)));
  });

  it('is asked for before the SDK starts: afterwards it says so', async () => {
    const h = startHarness({}, { ownMeter: true });
    try {
      assert.throws(() => h.instrumentation.metricProducer(), /before the SDK starts/);
    } finally {
      await h.shutdown();
    }
  });
});
