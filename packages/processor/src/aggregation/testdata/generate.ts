// Writes the inputs of the golden scenarios (run from the repo root:
// `node --conditions=lanewatch-source packages/processor/src/aggregation/testdata/generate.ts`), then
// `UPDATE_GOLDEN=1` on golden.test.ts writes the expected observations, to be reviewed by hand.
// The requests have the exact shape the OpenTelemetry JS JSON exporter sends (see request-fixture.test-helper.ts).

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cloneHistogram,
  type ExponentialHistogram,
  histogramOf,
  recordValue,
} from '../../histogram/exponential-histogram.ts';
import { lognormalSamples, paretoSamples } from '../../histogram/random-samples.ts';
import {
  exportRequestJson,
  type FixtureAttributes,
  type FixtureMetric,
} from '../../otlp/request-fixture.test-helper.ts';

const here = dirname(fileURLToPath(import.meta.url));
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const TTFT = 'lanewatch.time_to_first_text';
const DURATION = 'gen_ai.client.operation.duration';

const attrs = (lane: string, extra: FixtureAttributes = {}): FixtureAttributes => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'gen_ai.request.model': 'gpt-4o-mini',
  'server.address': 'api.openai.com',
  'lanewatch.lane': lane,
  'lanewatch.outcome': 'ok',
  'lanewatch.size_class': 's',
  'lanewatch.attempt': '1',
  'http.response.status_code': 200,
  ...extra,
});

function write(name: string, inputs: unknown[]): void {
  const dir = join(here, name);
  mkdirSync(dir, { recursive: true });
  for (const [i, input] of inputs.entries())
    writeFileSync(join(dir, `input${i + 1}.json`), `${JSON.stringify(input)}\n`);
}

function add(h: ExponentialHistogram, values: number[]): ExponentialHistogram {
  for (const v of values) recordValue(h, v);
  return cloneHistogram(h);
}

function metric(
  instance: string,
  name: string,
  temporality: 'delta' | 'cumulative',
  points: FixtureMetric['points'],
): FixtureMetric {
  return {
    resource: { 'service.name': 'checkout', 'service.instance.id': instance },
    name,
    temporality,
    points,
  };
}

// 1. Cumulative with a reset: a long-lived app (its first export is a baseline), one more export,
//    then a restart (new start time, counts from zero).
{
  const started = T0 - 3_600_000;
  const ttft = histogramOf(lognormalSamples(100, 101));
  const duration = histogramOf(lognormalSamples(100, 102, Math.log(3), 0.5));
  const first = [
    metric('a', TTFT, 'cumulative', [
      { attributes: attrs('fast'), startTimeMs: started, timeMs: T0, histogram: cloneHistogram(ttft) },
    ]),
    metric('a', DURATION, 'cumulative', [
      { attributes: attrs('fast'), startTimeMs: started, timeMs: T0, histogram: cloneHistogram(duration) },
    ]),
  ];
  const t1 = T0 + 60_000;
  const second = [
    metric('a', TTFT, 'cumulative', [
      {
        attributes: attrs('fast'),
        startTimeMs: started,
        timeMs: t1,
        histogram: add(ttft, lognormalSamples(50, 103)),
      },
    ]),
    metric('a', DURATION, 'cumulative', [
      {
        attributes: attrs('fast'),
        startTimeMs: started,
        timeMs: t1,
        histogram: add(duration, lognormalSamples(50, 104, Math.log(3), 0.5)),
      },
    ]),
  ];
  const restarted = T0 + 100_000;
  const t2 = T0 + 120_000;
  const third = [
    metric('a', TTFT, 'cumulative', [
      {
        attributes: attrs('fast'),
        startTimeMs: restarted,
        timeMs: t2,
        histogram: histogramOf(lognormalSamples(20, 105)),
      },
    ]),
    metric('a', DURATION, 'cumulative', [
      {
        attributes: attrs('fast'),
        startTimeMs: restarted,
        timeMs: t2,
        histogram: histogramOf(lognormalSamples(20, 106, Math.log(3), 0.5)),
      },
    ]),
  ];
  write('cumulative-with-reset', [
    exportRequestJson(first),
    exportRequestJson(second),
    exportRequestJson(third),
  ]);
}

// 2. Two instances of one lane whose histograms have different scales and offsets: a narrow
//    lognormal (high scale) and a Pareto tail (low scale). Both started inside the window, so their
//    first cumulative points count in full.
{
  const start = T0 - 30_000;
  const narrow = histogramOf(lognormalSamples(400, 201, Math.log(0.3), 0.1));
  const wide = histogramOf(paretoSamples(400, 202, 1.1, 0.1));
  write('two-instances-different-scales', [
    exportRequestJson([
      metric('a', TTFT, 'cumulative', [
        { attributes: attrs('fast'), startTimeMs: start, timeMs: T0, histogram: narrow },
      ]),
      metric('b', TTFT, 'cumulative', [
        { attributes: attrs('fast'), startTimeMs: start, timeMs: T0, histogram: wide },
      ]),
    ]),
  ]);
}

// 3. Delta temporality: three exports of outcomes, errors, retries, size classes and tokens/s.
{
  const inputs = [0, 1, 2].map((k) => {
    const t = T0 + k * 20_000;
    const p = (extra: FixtureAttributes, values: number[]) => ({
      attributes: attrs('slow', extra),
      startTimeMs: t - 20_000,
      timeMs: t,
      histogram: histogramOf(values),
    });
    return exportRequestJson([
      metric('a', DURATION, 'delta', [
        p({}, lognormalSamples(30, 300 + k, Math.log(5), 0.4)),
        p({ 'lanewatch.size_class': 'xl' }, lognormalSamples(5, 310 + k, Math.log(12), 0.3)),
        p(
          { 'lanewatch.outcome': 'error', 'error.type': 'rate_limited', 'http.response.status_code': 429 },
          [0.05, 0.06],
        ),
        p({ 'lanewatch.attempt': '2' }, [6.5]),
      ]),
      metric('a', TTFT, 'delta', [
        p({}, lognormalSamples(30, 320 + k, Math.log(0.9), 0.4)),
        p({ 'lanewatch.size_class': 'xl' }, lognormalSamples(5, 330 + k, Math.log(2), 0.3)),
        p({ 'lanewatch.attempt': '2' }, [1.1]),
      ]),
      metric('a', 'lanewatch.output_tokens_per_second', 'delta', [
        p({}, lognormalSamples(30, 340 + k, Math.log(45), 0.2)),
      ]),
    ]);
  });
  write('delta-input', inputs);
}

// 4. A malformed point inside a good batch: its bucket counts do not add up to its count, and
//    another point's count is not a number. The other points are kept.
{
  const start = T0 - 30_000;
  const request = exportRequestJson([
    metric('a', TTFT, 'cumulative', [
      {
        attributes: attrs('fast'),
        startTimeMs: start,
        timeMs: T0,
        histogram: histogramOf(lognormalSamples(40, 401)),
      },
      {
        attributes: attrs('fast', { 'lanewatch.size_class': 'm' }),
        startTimeMs: start,
        timeMs: T0,
        histogram: histogramOf(lognormalSamples(10, 402)),
      },
      {
        attributes: attrs('fast', { 'lanewatch.size_class': 'l' }),
        startTimeMs: start,
        timeMs: T0,
        histogram: histogramOf([0.5, 0.6]),
      },
    ]),
    metric('b', TTFT, 'cumulative', [
      {
        attributes: attrs('fast'),
        startTimeMs: start,
        timeMs: T0,
        histogram: histogramOf(lognormalSamples(40, 403)),
      },
    ]),
  ]);
  const points = request.resourceMetrics[0]?.scopeMetrics[0]?.metrics[0]?.exponentialHistogram.dataPoints;
  if (points?.[1] && points[2]) {
    points[1].count += 1;
    (points[2] as unknown as Record<string, unknown>).count = 'two';
  }
  write('malformed-point-in-good-batch', [request]);
}
