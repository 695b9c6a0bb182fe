import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ExponentialHistogram, histogramOf } from '../histogram/exponential-histogram.ts';
import { assertQuantilesWithinBound } from '../histogram/quantile-bound.test-helper.ts';
import { lognormalSamples, paretoSamples } from '../histogram/random-samples.ts';
import type { LaneObservation } from '../lane-observation.ts';
import type { AttributeValue, HistogramPoint, MetricsBatch } from '../otlp/histogram-point.ts';
import { LaneWindows } from './lane-windows.ts';

const NOW = Date.UTC(2026, 10, 30, 8, 0, 0);
const TTFT = 'lanewatch.time_to_first_text';
const DURATION = 'gen_ai.client.operation.duration';

function delta(
  metric: string,
  attributes: Record<string, AttributeValue>,
  histogram: ExponentialHistogram,
  timeMs = NOW,
): HistogramPoint {
  return {
    metric,
    stream: `${metric}|${JSON.stringify(attributes)}`,
    temporality: 'delta',
    attributes,
    startTimeMs: timeMs - 10_000,
    timeMs,
    data: { kind: 'exponential', histogram },
  };
}

const batch = (...points: HistogramPoint[]): MetricsBatch => ({ points, rejected: 0, errors: [] });
const fast = (extra: Record<string, AttributeValue> = {}) => ({
  'lanewatch.lane': 'fast',
  'lanewatch.outcome': 'ok',
  'lanewatch.size_class': 's',
  'lanewatch.attempt': 1,
  'gen_ai.request.model': 'm1',
  'gen_ai.provider.name': 'openai',
  ...extra,
});

function lane(observations: LaneObservation[], name: string, sizeClass?: string): LaneObservation {
  const o = observations.find((x) => x.lane === name && x.sizeClass === sizeClass);
  assert.ok(o, `observation for ${name}/${sizeClass}`);
  return o;
}

describe('lane windows', () => {
  it('separates ok from all, and counts outcomes, error types and retries from the duration', () => {
    const w = new LaneWindows();
    w.ingest(
      batch(
        delta(TTFT, fast(), histogramOf([0.2, 0.3, 0.4])),
        delta(
          TTFT,
          fast({ 'lanewatch.outcome': 'error', 'error.type': 'rate_limited' }),
          histogramOf([0.01]),
        ),
        delta(DURATION, fast(), histogramOf([1, 2, 3])),
        delta(DURATION, fast({ 'lanewatch.attempt': '2' }), histogramOf([4])),
        delta(
          DURATION,
          fast({ 'lanewatch.outcome': 'error', 'error.type': 'rate_limited' }),
          histogramOf([0.02, 0.03]),
        ),
        delta(
          DURATION,
          fast({ 'lanewatch.outcome': 'cancelled', 'lanewatch.size_class': 'xl' }),
          histogramOf([9]),
        ),
        delta('lanewatch.output_tokens_per_second', fast(), histogramOf([40, 50, 60])),
      ),
      NOW,
    );
    const all = w.observe(NOW);
    assert.deepEqual(
      all.map((o) => [o.lane, o.sizeClass]),
      [
        ['fast', undefined],
        ['fast', 's'],
        ['fast', 'xl'],
      ],
    );
    const o = lane(all, 'fast');
    assert.equal(o.ok.first_text?.count, 3);
    assert.equal(o.all.first_text?.count, 4);
    assert.equal(o.all.first_text?.quantile(0), 0.01, 'a fast 429 is in `all`…');
    assert.equal(o.ok.first_text?.quantile(0), 0.2, '…and never in `ok`');
    assert.equal(o.calls, 7);
    assert.deepEqual(o.outcomes, { ok: 4, error: 2, cancelled: 1, truncated: 0 });
    assert.deepEqual(o.errorTypes, { rate_limited: 2 });
    assert.equal(o.retries, 1);
    assert.equal(o.outputTokensPerSecond?.count, 3);
    assert.deepEqual(o.models, ['m1']);
    assert.deepEqual(o.providers, ['openai']);
    assert.equal(o.windowSeconds, 300);
    assert.equal(o.windowEnd, NOW);
    assert.equal(lane(all, 'fast', 'xl').calls, 1);
    assert.equal(lane(all, 'fast', 's').calls, 6);
  });

  it('merges instances of one lane and keeps quantiles within the bound', () => {
    const w = new LaneWindows();
    const parts = [
      lognormalSamples(3000, 1),
      lognormalSamples(3000, 2, Math.log(0.8), 0.5),
      paretoSamples(3000, 3),
    ];
    w.ingest(
      batch(
        ...parts.map((p, i) => ({ ...delta(TTFT, fast(), histogramOf(p, 20 - 4 * i)), stream: `i${i}` })),
      ),
      NOW,
    );
    const d = lane(w.observe(NOW), 'fast').ok.first_text;
    assert.ok(d);
    assert.equal(d.count, 9000);
    assertQuantilesWithinBound(parts.flat(), (q) => d.quantile(q), d.relativeError, 'three instances');
  });

  it('slides: data leaves the window slice by slice', () => {
    const w = new LaneWindows({ windowSeconds: 60, sliceSeconds: 10 });
    w.ingest(batch(delta(TTFT, fast(), histogramOf([1]), NOW)), NOW);
    w.ingest(batch(delta(TTFT, fast(), histogramOf([2, 2]), NOW + 30_000)), NOW + 30_000);
    assert.equal(lane(w.observe(NOW + 30_000), 'fast').ok.first_text?.count, 3);
    assert.equal(lane(w.observe(NOW + 59_999), 'fast').ok.first_text?.count, 3);
    assert.equal(lane(w.observe(NOW + 60_000), 'fast').ok.first_text?.count, 2);
    assert.deepEqual(w.observe(NOW + 90_000), []);
    assert.equal(w.stats().slices, 0);
  });

  it('drops points older than the window and clamps points from the future', () => {
    const w = new LaneWindows({ windowSeconds: 60 });
    w.ingest(batch(delta(TTFT, fast(), histogramOf([1]), NOW - 120_000)), NOW);
    w.ingest(batch(delta(TTFT, fast(), histogramOf([1]), NOW + 3_600_000)), NOW);
    assert.equal(w.stats().tooOld, 1);
    assert.equal(lane(w.observe(NOW), 'fast').ok.first_text?.count, 1);
  });

  it('falls back to provider/model as the lane, and refuses points without either', () => {
    const w = new LaneWindows();
    const result = w.ingest(
      batch(
        delta(
          TTFT,
          { 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude' },
          histogramOf([1]),
        ),
        delta(TTFT, { 'lanewatch.outcome': 'ok' }, histogramOf([1])),
        delta('some.other.metric', {}, histogramOf([1])),
      ),
      NOW,
    );
    assert.equal(result.rejected, 1);
    assert.match(result.errors[0] ?? '', /neither lanewatch.lane nor/);
    assert.deepEqual(
      w.observe(NOW).map((o) => o.lane),
      ['anthropic/claude'],
    );
  });

  it('caps the number of lanes, and frees the room of quiet ones', () => {
    const w = new LaneWindows({ maxLanes: 2, windowSeconds: 60 });
    const on = (l: string, t: number) =>
      w.ingest(batch(delta(TTFT, fast({ 'lanewatch.lane': l }), histogramOf([1]), t)), t);
    on('a', NOW);
    on('b', NOW);
    const refused = on('c', NOW);
    assert.equal(refused.rejected, 1);
    assert.match(refused.errors[0] ?? '', /lane "c" refused, the cap of 2 lanes is reached/);
    assert.equal(on('c', NOW + 61_000).rejected, 0);
    assert.equal(w.stats().lanes, 1);
  });

  it('turns cumulative points of many instances into one lane distribution', () => {
    const w = new LaneWindows();
    const start = NOW - 3_600_000; // long-lived apps: their first point is a baseline
    const cumulative = (instance: string, values: number[], t: number): HistogramPoint => ({
      ...delta(TTFT, fast(), histogramOf(values), t),
      temporality: 'cumulative',
      stream: instance,
      startTimeMs: start,
    });
    w.ingest(batch(cumulative('a', [1, 1], NOW), cumulative('b', [1], NOW)), NOW);
    assert.deepEqual(w.observe(NOW), []);
    w.ingest(
      batch(cumulative('a', [1, 1, 0.5], NOW + 10_000), cumulative('b', [1, 0.25, 0.25], NOW + 10_000)),
      NOW + 10_000,
    );
    const d = lane(w.observe(NOW + 10_000), 'fast').ok.first_text;
    assert.equal(d?.count, 3);
    assert.equal(d?.quantile(0), 0.25);
    assert.equal(d?.max, undefined, 'no exact max: the cumulative maxima did not move');
  });
});
