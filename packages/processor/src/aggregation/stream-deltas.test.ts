import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cloneHistogram,
  type ExponentialHistogram,
  histogramOf,
  recordValue,
} from '../histogram/exponential-histogram.ts';
import type { HistogramPoint } from '../otlp/histogram-point.ts';
import { type DeltaOutcome, StreamDeltas } from './stream-deltas.ts';

const MIN = 60_000;
const NOW = Date.UTC(2026, 10, 30, 8, 0, 0);

function point(h: ExponentialHistogram, startTimeMs: number, timeMs: number, stream = 's'): HistogramPoint {
  return {
    metric: 'm',
    stream,
    temporality: 'cumulative',
    attributes: {},
    startTimeMs,
    timeMs,
    data: { kind: 'exponential', histogram: cloneHistogram(h) },
  };
}

function count(d: DeltaOutcome): number | string {
  return d.kind === 'new' ? d.data.histogram.count : d.kind;
}

const deltas = () => new StreamDeltas({ maxStreams: 2, windowMs: 5 * MIN, ttlMs: 10 * MIN });

describe('cumulative points to deltas', () => {
  it('counts a first point whose start is within the window as all new', () => {
    const d = deltas();
    assert.equal(count(d.deltaOf(point(histogramOf([1, 2, 3]), NOW - 2 * MIN, NOW), NOW)), 3);
  });

  it('takes a first point that started before the window as the baseline', () => {
    const d = deltas();
    const h = histogramOf([1, 2, 3]);
    assert.equal(count(d.deltaOf(point(h, NOW - 60 * MIN, NOW), NOW)), 'none');
    recordValue(h, 4);
    recordValue(h, 5);
    assert.equal(count(d.deltaOf(point(h, NOW - 60 * MIN, NOW + MIN), NOW + MIN)), 2);
    assert.equal(d.counters.baselines, 1);
  });

  it('treats a new start time as a reset: the whole point is new', () => {
    const d = deltas();
    d.deltaOf(point(histogramOf([1, 2, 3, 4]), NOW - 60 * MIN, NOW), NOW);
    assert.equal(count(d.deltaOf(point(histogramOf([7]), NOW + 30_000, NOW + MIN), NOW + MIN)), 1);
    assert.equal(d.counters.resets, 1);
  });

  it('treats a count that went down as a reset even with the same start time', () => {
    const d = deltas();
    d.deltaOf(point(histogramOf([1, 2, 3, 4]), NOW - 60 * MIN, NOW), NOW);
    assert.equal(count(d.deltaOf(point(histogramOf([1, 2]), NOW - 60 * MIN, NOW + MIN), NOW + MIN)), 2);
    assert.equal(d.counters.resets, 1);
  });

  it('ignores a repeated or older point', () => {
    const d = deltas();
    const h = histogramOf([1]);
    d.deltaOf(point(h, NOW - MIN, NOW), NOW);
    assert.equal(count(d.deltaOf(point(h, NOW - MIN, NOW), NOW)), 'none');
    assert.equal(count(d.deltaOf(point(h, NOW - MIN, NOW - 1), NOW)), 'none');
    assert.equal(d.counters.outOfOrder, 2);
  });

  it('passes delta points through without state', () => {
    const d = deltas();
    const p = { ...point(histogramOf([1, 2]), NOW - MIN, NOW), temporality: 'delta' as const };
    assert.equal(count(d.deltaOf(p, NOW)), 2);
    assert.equal(count(d.deltaOf(p, NOW)), 2);
    assert.equal(d.size, 0);
  });

  it('refuses new streams over the cap until stale ones are evicted', () => {
    const d = deltas();
    d.deltaOf(point(histogramOf([1]), NOW - MIN, NOW, 'a'), NOW);
    d.deltaOf(point(histogramOf([1]), NOW - MIN, NOW, 'b'), NOW);
    assert.equal(count(d.deltaOf(point(histogramOf([1]), NOW - MIN, NOW, 'c'), NOW)), 'refused');
    const later = NOW + 11 * MIN;
    assert.equal(count(d.deltaOf(point(histogramOf([1]), later - MIN, later, 'c'), later)), 1);
    assert.equal(d.counters.evicted, 2);
  });
});
