// Ingest rate of the processor on one core: OTLP/HTTP protobuf requests of 160-bucket exponential
// histogram points, decoded and aggregated into the lane windows (cumulative → delta per stream,
// merged into the window slices). Compared, in the same run, with the decode alone and with
// protobufjs's bare decode of the same bytes, so the ratio says what aggregation costs.
//
//   node packages/processor/bench/ingest.ts            (after `npm run build`; or add
//   node --conditions=lanewatch-source packages/processor/bench/ingest.ts  to run from sources)

import { availableParallelism, loadavg } from 'node:os';
import { MILESTONE_METRIC, MILESTONES } from '@lanewatch/instrumentation';
import { LaneWindows } from '../src/aggregation/lane-windows.ts';
import {
  cloneHistogram,
  type ExponentialHistogram,
  emptyHistogram,
} from '../src/histogram/exponential-histogram.ts';
import { seededRandom } from '../src/histogram/random-samples.ts';
import { decodeJsonRequest } from '../src/otlp/decode-json.ts';
import { decodeProtobufRequest } from '../src/otlp/decode-protobuf.ts';
import { exportMetricsServiceRequest } from '../src/otlp/otlp-schema.ts';
import {
  exportRequestJson,
  exportRequestProtobuf,
  type FixtureMetric,
  type FixturePoint,
} from '../src/otlp/request-fixture.test-helper.ts';

const TARGET_POINTS_PER_SECOND = 50_000;
const BUCKETS = 160;
const LANES = 20;
const INSTANCES = 5;
const OUTCOMES = ['ok', 'ok', 'error', 'cancelled'] as const;
/** Successive exports of the same streams (each one 10 s after the previous). */
const EXPORTS = 6;
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

// One stream per instance × lane × milestone × outcome: 5 × 20 × 5 × 4 = 2,000 points per export.
const random = seededRandom(1);
interface Stream {
  instance: number;
  lane: number;
  milestone: (typeof MILESTONES)[number];
  outcome: string;
  histogram: ExponentialHistogram;
}
const streams: Stream[] = [];
for (let instance = 0; instance < INSTANCES; instance++)
  for (let lane = 0; lane < LANES; lane++)
    for (const milestone of MILESTONES)
      for (const [k, outcome] of OUTCOMES.entries()) {
        const offset = -200 + Math.floor(random() * 20);
        streams.push({
          instance,
          lane,
          milestone,
          outcome: k === 1 ? 'truncated' : outcome,
          histogram: {
            ...emptyHistogram(5),
            positive: { offset, counts: new Array<number>(BUCKETS).fill(0) },
          },
        });
      }

function nextExport(e: number): unknown {
  const time = T0 + e * 10_000;
  // As an SDK exports: per instance one resource, per milestone one metric with all its points.
  const metrics = new Map<string, FixtureMetric & { points: FixturePoint[] }>();
  for (const s of streams) {
    const h = s.histogram;
    for (let i = 0; i < BUCKETS; i++) {
      const add = 1 + Math.floor(random() * 4);
      h.positive.counts[i] = (h.positive.counts[i] as number) + add;
      h.count += add;
      h.sum = (h.sum ?? 0) + add * 2 ** ((h.positive.offset + i) / 32);
    }
    const key = `${s.instance}|${s.milestone}`;
    let metric = metrics.get(key);
    if (metric === undefined) {
      metric = {
        resource: { 'service.name': 'bench', 'service.instance.id': `i${s.instance}` },
        name: MILESTONE_METRIC[s.milestone],
        temporality: 'cumulative',
        points: [],
      };
      metrics.set(key, metric);
    }
    metric.points.push({
      attributes: {
        'lanewatch.lane': `lane-${s.lane}`,
        'lanewatch.outcome': s.outcome,
        'lanewatch.size_class': 's',
        'lanewatch.attempt': '1',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
      },
      startTimeMs: T0 - 60_000,
      timeMs: time,
      histogram: cloneHistogram(h),
    });
  }
  return exportRequestJson([...metrics.values()]);
}

const jsonExports = Array.from({ length: EXPORTS }, (_, e) => nextExport(e));
const protobufExports = jsonExports.map((j) => Buffer.from(exportRequestProtobuf(j)));
const jsonTexts = jsonExports.map((j) => JSON.stringify(j));
const pointsPerExport = streams.length;

type Run = () => void;

/**
 * Points per CPU second of `run` (which handles all EXPORTS exports), median of five rounds of about
 * one CPU second each. CPU time rather than wall time: on a shared machine another process's load
 * must not read as this code's slowness. It includes GC helper threads, which only lowers the rate.
 */
function rate(run: Run): number {
  for (let i = 0; i < 3; i++) run(); // warm up the JIT
  const cpuSeconds = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    let points = 0;
    const start = cpuSeconds();
    while (cpuSeconds() - start < 1) {
      run();
      points += EXPORTS * pointsPerExport;
    }
    rounds.push(points / (cpuSeconds() - start));
  }
  return rounds.sort((a, b) => a - b)[2] as number;
}

const bareDecode: Run = () => {
  for (const body of protobufExports) exportMetricsServiceRequest.decode(body);
};
const decodeOnly: Run = () => {
  for (const body of protobufExports) decodeProtobufRequest(body);
};
const decodeAndAggregate: Run = () => {
  const windows = new LaneWindows();
  for (const [e, body] of protobufExports.entries()) {
    windows.ingest(decodeProtobufRequest(body, windows.accepts), T0 + e * 10_000 + 1000);
  }
};
const jsonDecodeAndAggregate: Run = () => {
  const windows = new LaneWindows();
  for (const [e, text] of jsonTexts.entries()) {
    windows.ingest(decodeJsonRequest(text, windows.accepts), T0 + e * 10_000 + 1000);
  }
};

// Sanity: the windows hold what the exports added after the first (all new: the streams started
// inside the window), so the benchmark measures real work.
{
  const windows = new LaneWindows();
  for (const [e, body] of protobufExports.entries())
    windows.ingest(decodeProtobufRequest(body), T0 + e * 10_000 + 1000);
  const calls = windows
    .observe(T0 + EXPORTS * 10_000)
    .reduce((n, o) => n + (o.sizeClass === undefined ? o.calls : 0), 0);
  const expected = streams.filter((s) => s.milestone === 'end').reduce((n, s) => n + s.histogram.count, 0);
  if (calls !== expected) throw new Error(`benchmark windows hold ${calls} calls, expected ${expected}`);
}

const bytesPerPoint = protobufExports.reduce((n, b) => n + b.length, 0) / (EXPORTS * pointsPerExport);
console.log(
  `ingest: ${pointsPerExport} points/export × ${EXPORTS} exports, ${BUCKETS} buckets/point, ` +
    `${Math.round(bytesPerPoint)} protobuf bytes/point, one core (node ${process.version})`,
);
const load = loadavg()[0] ?? 0;
if (load > availableParallelism()) {
  console.log(
    `  note: load average ${load.toFixed(1)} on ${availableParallelism()} cores: other processes share the caches; rates read low`,
  );
}
const baseline = rate(bareDecode);
const rows: [string, number][] = [
  ['protobufjs decode (baseline)', baseline],
  ['decode + validate points', rate(decodeOnly)],
  ['decode + aggregate (protobuf)', rate(decodeAndAggregate)],
  ['decode + aggregate (JSON)', rate(jsonDecodeAndAggregate)],
];
for (const [name, r] of rows) {
  console.log(
    `  ${name.padEnd(32)} ${Math.round(r).toLocaleString('en-US').padStart(10)} points/s (CPU)  ×${(r / baseline).toFixed(2)}`,
  );
}
const ingest = rows[2]?.[1] ?? 0;
const verdict = ingest >= TARGET_POINTS_PER_SECOND ? 'meets' : 'MISSES';
console.log(
  `protobuf ingest ${verdict} the target of ${TARGET_POINTS_PER_SECOND.toLocaleString('en-US')} points/s`,
);
