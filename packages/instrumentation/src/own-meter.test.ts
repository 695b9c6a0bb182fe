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
