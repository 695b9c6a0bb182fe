// The lanes dashboard's panels, as committed, against a real Prometheus fed through the built
// collector with histograms whose answers are known: what grafana/README.md says each panel shows
// (quantiles of successful calls per lane, tail ratio, breakdown, error and 429 shares, calls and
// errors per second, tokens, output speed, first-output kind). pipeline.test.ts only asks for data.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ATTR, METRIC, MILESTONE_METRIC, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import { MILESTONE_TITLE } from '../../grafana/src/series.ts';
import {
  type Collector,
  type CollectorStack,
  type Prometheus,
  type PromSample,
  startCollectorStack,
} from '../stack/index.ts';
import {
  type AttributeValue,
  exponentialPoint,
  type HistogramMetric,
  metricsRequest,
  postOtlpJson,
} from '../stack/otlp-payloads.ts';
import { builtIns, type PanelQuery, panelQueries, substituteVariables } from './dashboard-queries.ts';
import { eventually } from './pipeline-stack.ts';

const JOB = 'dashboard-values-app';
const LANES_DASHBOARD = 'lanewatch — lanes';

/** Seconds of a lane's typical call to each milestone (ok calls: 90 % at 1×, 6 % at 3×, 4 % at 5×). */
const TYPICAL: Readonly<Record<Milestone, number>> = {
  headers: 0.25,
  first_chunk: 0.5,
  first_output: 0.75,
  first_text: 1,
  end: 2,
};

interface Observations {
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly values: readonly number[];
}

const n = (count: number, value: number) => Array<number>(count).fill(value);

function call(lane: string, outcome: string, extra: Record<string, AttributeValue> = {}) {
  return {
    [ATTR.operationName]: 'chat',
    [ATTR.requestModel]: `${lane}-model`,
    [ATTR.lane]: lane,
    [ATTR.outcome]: outcome,
    [ATTR.statusCode]: 200,
    ...extra,
  };
}

/**
 * Per metric, the observations of one export interval. "tails": 100 ok calls (p50 1×, p95 3×, p99 5×),
 * 200 fast 429s and 100 fast 503s, which have headers and an end and nothing between. "clean": 100 ok
 * calls at half the typical times, no error.
 */
function interval(): Map<string, Observations[]> {
  const byMetric = new Map<string, Observations[]>();
  for (const m of MILESTONES) {
    const t = TYPICAL[m];
    // Only first output says what arrived: the tails lane reasons first, the clean one writes text.
    const kind = (k: string): Record<string, AttributeValue> =>
      m === 'first_output' ? { [ATTR.outputKind]: k } : {};
    const observations: Observations[] = [
      {
        attributes: call('tails', 'ok', kind('reasoning')),
        values: [...n(90, t), ...n(6, 3 * t), ...n(4, 5 * t)],
      },
      { attributes: call('clean', 'ok', kind('text')), values: n(100, t / 2) },
    ];
    if (m === 'headers' || m === 'end') {
      observations.push(
        {
          attributes: call('tails', 'error', { [ATTR.errorType]: 'rate_limited', [ATTR.statusCode]: 429 }),
          values: n(200, 0.01),
        },
        {
          attributes: call('tails', 'error', { [ATTR.errorType]: 'http_5xx', [ATTR.statusCode]: 503 }),
          values: n(100, 0.02),
        },
      );
    }
    byMetric.set(MILESTONE_METRIC[m], observations);
  }
  byMetric.set(METRIC.tokenUsage, [
    { attributes: call('tails', 'ok', { [ATTR.tokenType]: 'input' }), values: n(100, 50) },
    { attributes: call('tails', 'ok', { [ATTR.tokenType]: 'output' }), values: n(100, 20) },
  ]);
  byMetric.set(METRIC.outputTokensPerSecond, [
    { attributes: call('tails', 'ok'), values: [...n(93, 50), ...n(7, 10)] },
  ]);
  return byMetric;
}

const UNIT: Readonly<Record<string, string>> = {
  [METRIC.tokenUsage]: '{token}',
  [METRIC.outputTokensPerSecond]: '{token}/s',
};

const ns = (date: number) => BigInt(date) * 1_000_000n;

/** Cumulative points after `intervals` export intervals (the same observations each time). */
function cumulative(intervals: number, startNs: bigint, timeNs: bigint) {
  const metrics: HistogramMetric[] = [...interval()].map(([name, observations]) => ({
    name,
    unit: UNIT[name] ?? 's',
    points: observations.map(({ attributes, values }) =>
      exponentialPoint({
        values: Array.from({ length: intervals }, () => values).flat(),
        scale: 10,
        attributes,
        startNs,
        timeNs,
      }),
    ),
  }));
  return metricsRequest({ 'service.name': JOB, 'service.instance.id': 'values-1' }, metrics);
}

describe('the lanes dashboard’s panels show what grafana/README.md says, on known data', () => {
  let stack: CollectorStack | undefined;
  let prometheus: Prometheus;
  let collector: Collector;
  let queryTime: Date;

  before(async () => {
    stack = await startCollectorStack();
    ({ prometheus, collector } = stack);
    const now = Date.now();
    const start = ns(now - 60_000);
    const prom = prometheus;
    const endCount = (time: Date) =>
      prom.query(`sum(histogram_count(gen_ai_client_operation_duration_seconds{job="${JOB}"}))`, time);
    // Two points 20 s apart, the second only once the first is stored (one in-order writer per series).
    await postOtlpJson(collector.otlpHttpUrl, '/v1/metrics', cumulative(1, start, ns(now - 30_000)));
    await eventually('the first interval in Prometheus', async () =>
      (await endCount(new Date(now - 30_000)))[0]?.value?.[1] === '500' ? true : undefined,
    );
    await postOtlpJson(collector.otlpHttpUrl, '/v1/metrics', cumulative(2, start, ns(now - 10_000)));
    queryTime = new Date(now);
    await eventually('the second interval in Prometheus', async () =>
      (await endCount(queryTime))[0]?.value?.[1] === '1000' ? true : undefined,
    );
  });

  after(async () => {
    await stack?.stop();
  });

  /** A panel's queries, by title and legend, with the variables as Grafana sets them for "All". */
  function queriesOf(title: RegExp): PanelQuery[] {
    const found = panelQueries().filter((q) => q.dashboard === LANES_DASHBOARD && title.test(q.panel));
    assert.ok(found.length > 0, `a panel titled ${title}`);
    return found;
  }

  /** Each series of one query as `legend → value`, the legend rendered as Grafana would. */
  async function run(query: PanelQuery, lane = '.*'): Promise<Map<string, number>> {
    assert.ok(prometheus);
    const expr = substituteVariables(query.expr, {
      job: JOB,
      lane,
      model: '.*',
      ...builtIns('1m', '1m'),
    });
    const samples: PromSample[] = await prometheus.query(expr, queryTime);
    return new Map(
      samples.map((s) => [
        query.legend.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, label: string) => s.metric[label] ?? ''),
        Number(s.value?.[1]),
      ]),
    );
  }

  async function runAll(title: RegExp, lane?: string): Promise<Map<string, number>> {
    const values = new Map<string, number>();
    for (const query of queriesOf(title)) for (const [k, v] of await run(query, lane)) values.set(k, v);
    return values;
  }

  function near(values: Map<string, number>, legend: string, expected: number, tolerance = 0.01): void {
    const value = values.get(legend);
    assert.ok(value !== undefined, `no "${legend}" among ${JSON.stringify([...values])}`);
    assert.ok(
      Math.abs(value - expected) <= tolerance * Math.abs(expected),
      `${legend}: ${value}, expected ≈ ${expected}`,
    );
  }

  test('each milestone panel shows p50, p95 and p99 per lane of successful calls only: fast 429s and 5xx do not make a lane look fast', async () => {
    for (const m of MILESTONES) {
      const values = await runAll(
        new RegExp(`^Time to ${MILESTONE_TITLE[m]}\\b.* — p50 · p95 · p99 per lane$`),
      );
      const t = TYPICAL[m];
      near(values, 'tails p50', t);
      near(values, 'tails p95', 3 * t);
      near(values, 'tails p99', 5 * t);
      for (const q of ['p50', 'p95', 'p99']) near(values, `clean ${q}`, t / 2);
    }
  });

  test('the tail ratio panel shows p99 / p50 per lane for first text and end', async () => {
    const values = await runAll(/^Tail ratio p99 \/ p50 per lane/);
    near(values, 'tails first text', 5);
    near(values, 'tails end', 5);
    near(values, 'clean first text', 1);
    near(values, 'clean end', 1);
  });

  test('the breakdown of one lane shows every milestone’s p50 and p95 over the picked range', async () => {
    const values = await runAll(/^Milestone breakdown of lane \$lane\b/, 'tails');
    for (const m of MILESTONES) {
      near(values, `${MILESTONE_TITLE[m]} p50`, TYPICAL[m]);
      near(values, `${MILESTONE_TITLE[m]} p95`, 3 * TYPICAL[m]);
    }
  });

  test('calls per second split by outcome; errors per second split by error.type', async () => {
    const calls = await runAll(/^Calls per second by lane and outcome\b/);
    near(calls, 'tails error', 3 * (calls.get('tails ok') ?? Number.NaN));
    near(calls, 'clean ok', calls.get('tails ok') ?? Number.NaN);
    assert.deepEqual([...calls.keys()].sort(), ['clean ok', 'tails error', 'tails ok']);
    const errors = await runAll(/^Errors per second by lane and error\.type\b/);
    assert.deepEqual([...errors.keys()].sort(), ['tails http_5xx', 'tails rate_limited']);
    near(errors, 'tails rate_limited', 2 * (errors.get('tails http_5xx') ?? Number.NaN));
  });

  test('the error and 429 ratio panel shows each as a share of all the lane’s calls', async () => {
    const values = await runAll(/^Error and 429 ratio per lane\b/);
    near(values, 'tails errors', 300 / 400);
    near(values, 'tails 429', 200 / 400);
  });

  test('a lane without errors shows a 0 % error and 429 ratio', async () => {
    const values = await runAll(/^Error and 429 ratio per lane\b/);
    assert.equal(values.get('clean errors'), 0, JSON.stringify([...values]));
    assert.equal(values.get('clean 429'), 0, JSON.stringify([...values]));
  });

  test('token and output-speed panels: input vs output tokens per second, and p50 / p5 tokens/s per call', async () => {
    const tokens = await runAll(/^Tokens per second through each lane\b/);
    near(tokens, 'tails input', 2.5 * (tokens.get('tails output') ?? Number.NaN));
    const speed = await runAll(/^Output speed per call\b/);
    near(speed, 'tails p50', 50);
    near(speed, 'tails p5', 10);
  });

  test('what arrives at first output is split by kind per lane', async () => {
    const values = await runAll(/^What arrives at first output\b/);
    assert.deepEqual([...values.keys()].sort(), ['clean text', 'tails reasoning']);
    near(values, 'clean text', values.get('tails reasoning') ?? Number.NaN);
  });
});
