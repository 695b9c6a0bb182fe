import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { ATTR, lanewatchViews, MILESTONE_METRIC, MILESTONE_QUANTILE_KEY } from '@lanewatch/instrumentation';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { createAdmissionController } from '../admission/admission-controller.ts';
import type { AdmissionJob } from '../admission/admit.ts';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import type { LaneHealthView } from '../evaluation/lane-health.ts';
import { lognormalSamples } from '../histogram/random-samples.ts';
import { createLaneReader } from '../reader/lane-reader.ts';
import { createAggregationWindows } from '../server/aggregation-windows.ts';
import { type RunningProcessor, startProcessor } from '../server/processor.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { PROCESSOR_INSTRUMENT, PROCESSOR_METER, STATE_CODE, TELEMETRY_ATTR } from './instrument-names.ts';
import { type OtlpJsonSink, type SinkPoint, startOtlpJsonSink } from './otlp-json-sink.test-helper.ts';

// The processor's own metrics end to end: an app's real MeterProvider (lanewatch's exponential View)
// exports two lanes to a real processor; the processor evaluates them and exports its gauges and
// counters over OTLP/HTTP JSON to a sink; what the sink holds must be what GET /v1/lanes says.

const CANARY = 'lw-canary-8c41';
const TOKEN = `${CANARY}-token`;

const LANES = {
  fast: { ok: lognormalSamples(120, 11, Math.log(0.3), 0.5), timeouts: 0 },
  slow: { ok: lognormalSamples(120, 12, Math.log(1.2), 0.5), timeouts: 3 },
} as const;

let sink: OtlpJsonSink;
let processor: RunningProcessor;
let lanes: LaneHealthView[];

/** What an app instrumented with lanewatch exports: first-output and end histograms, per lane. */
async function exportFromApp(url: string) {
  const reader = new PeriodicExportingMetricReader({
    exporter: new OTLPMetricExporter({ url, headers: { authorization: `Bearer ${TOKEN}` } }),
    exportIntervalMillis: 3_600_000,
  });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': 'app', 'app.secret': CANARY }),
    readers: [reader],
    views: lanewatchViews(),
  });
  const meter = provider.getMeter('@lanewatch/instrumentation');
  const firstOutput = meter.createHistogram(MILESTONE_METRIC.first_output, { unit: 's' });
  const end = meter.createHistogram(MILESTONE_METRIC.end, { unit: 's' });
  for (const [lane, { ok, timeouts }] of Object.entries(LANES)) {
    const attributes = {
      [ATTR.lane]: lane,
      [ATTR.sizeClass]: 's',
      [ATTR.attempt]: '1',
      [ATTR.providerName]: 'openai',
      [ATTR.requestModel]: 'gpt-test',
      'gen_ai.prompt': `${CANARY} prompt`,
    };
    for (const v of ok) {
      firstOutput.record(v / 3, { ...attributes, [ATTR.outcome]: 'ok' });
      end.record(v, { ...attributes, [ATTR.outcome]: 'ok' });
    }
    for (let i = 0; i < timeouts; i++) {
      end.record(30, { ...attributes, [ATTR.outcome]: 'error', [ATTR.errorType]: 'timeout' });
    }
  }
  await provider.shutdown(); // one export
}

function only(points: readonly SinkPoint[], metric: string, attributes: Record<string, string>): SinkPoint[] {
  return points.filter(
    (p) => p.metric === metric && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v),
  );
}

/** The value of the one point of `metric` with `attributes`; fails if there is not exactly one. */
function pointValue(
  points: readonly SinkPoint[],
  metric: string,
  attributes: Record<string, string>,
): number {
  const found = only(points, metric, attributes);
  assert.equal(found.length, 1, `${metric} ${JSON.stringify(attributes)}: ${found.length} points`);
  return (found[0] as SinkPoint).value;
}

const hasBothLanes = (points: readonly SinkPoint[]) =>
  ['fast', 'slow'].every(
    (lane) => only(points, PROCESSOR_INSTRUMENT.laneState.name, { [TELEMETRY_ATTR.lane]: lane }).length > 0,
  );

before(async () => {
  sink = await startOtlpJsonSink();
  processor = await startProcessor({
    port: 0,
    host: '127.0.0.1',
    store: createMemoryStore(),
    windows: createAggregationWindows({ windowS: 300, sliceS: 10 }),
    intervalS: 3600, // rounds run when the test says
    windowS: 300,
    bearerToken: TOKEN,
    metricsExport: { url: `${sink.url}/v1/metrics`, protocol: 'http/json', intervalMs: 100 },
  });
  await exportFromApp(`${processor.url}/v1/metrics`);
  await processor.loop.evaluateNow();
  const response = await fetch(`${processor.url}/v1/lanes`);
  lanes = ((await response.json()) as { lanes: LaneHealthView[] }).lanes;
});

after(async () => {
  await processor.close();
  await sink.close();
});

describe("the processor's own metrics over OTLP", () => {
  it('exports state, quantile, cutoff and hint gauges equal to the lane records', async () => {
    assert.deepEqual(
      lanes.map((l) => [l.lane, l.state]),
      [
        ['fast', 'healthy'],
        ['slow', 'healthy'],
      ],
    );
    const { points } = await sink.waitFor(hasBothLanes);
    const I = PROCESSOR_INSTRUMENT;
    for (const record of lanes) {
      const lane = { [TELEMETRY_ATTR.lane]: record.lane };
      for (const state of Object.keys(STATE_CODE)) {
        const expected = state === record.state ? 1 : 0;
        assert.equal(
          pointValue(points, I.laneState.name, { ...lane, [TELEMETRY_ATTR.state]: state }),
          expected,
        );
      }
      assert.equal(pointValue(points, I.laneStateCode.name, lane), STATE_CODE[record.state]);
      assert.equal(pointValue(points, I.laneSamples.name, lane), record.samples);
      for (const milestone of ['first_output', 'end'] as const) {
        const quantiles = record.quantiles[MILESTONE_QUANTILE_KEY[milestone]];
        assert.ok(quantiles, `${record.lane} has ${milestone} quantiles`);
        for (const q of ['p50', 'p95', 'p99'] as const) {
          const attributes = { ...lane, [TELEMETRY_ATTR.milestone]: milestone, [TELEMETRY_ATTR.quantile]: q };
          assert.equal(pointValue(points, I.laneQuantile.name, attributes), quantiles[q]);
        }
      }
      // A milestone the app never reported has no point, rather than a 0.
      assert.deepEqual(
        only(points, I.laneQuantile.name, { ...lane, [TELEMETRY_ATTR.milestone]: 'headers' }),
        [],
      );
      assert.ok(record.cutoffs.first_output_s !== null && record.cutoffs.total_s !== null);
      const cutoff = (milestone: string) =>
        pointValue(points, I.laneCutoff.name, { ...lane, [TELEMETRY_ATTR.milestone]: milestone });
      assert.equal(cutoff('first_output'), record.cutoffs.first_output_s);
      assert.equal(cutoff('end'), record.cutoffs.total_s);
      assert.equal(
        pointValue(points, I.laneHedgeDelay.name, { ...lane, [TELEMETRY_ATTR.milestone]: 'first_output' }),
        record.hedge.after_s,
      );
      assert.equal(pointValue(points, I.laneHedgeAllowed.name, lane), record.hedge.allowed ? 1 : 0);
      assert.equal(
        pointValue(points, I.laneExpectedCost.name, { ...lane, [TELEMETRY_ATTR.milestone]: 'end' }),
        record.expected_cost_s,
      );
      assert.equal(
        pointValue(points, I.laneTailRatio.name, { ...lane, [TELEMETRY_ATTR.milestone]: 'first_output' }),
        record.tail_ratio,
      );
      for (const rate of ['error', 'timeout', 'rate_limited', 'retry', 'cancelled'] as const) {
        assert.equal(
          pointValue(points, I.laneRate.name, { ...lane, [TELEMETRY_ATTR.rate]: rate }),
          record.rates[rate],
        );
      }
    }
    const slow = lanes.find((l) => l.lane === 'slow');
    assert.ok(slow && slow.rates.timeout > 0, 'the timeouts show in the slow lane’s rates');

    const state = only(points, I.laneState.name, {})[0] as SinkPoint;
    assert.equal(state.kind, 'gauge');
    assert.equal(state.scope, PROCESSOR_METER);
    assert.equal(state.resource['service.name'], 'lanewatch-processor');
    assert.equal(state.resource['service.instance.id'], `${hostname()}:${processor.port}`);
    assert.equal(only(points, I.laneQuantile.name, {})[0]?.unit, 's');
  });

  it('counts ingest requests by status and points accepted and rejected', async () => {
    const from = sink.requests.length;
    const post = (body: string) =>
      fetch(`${processor.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body,
      });
    assert.equal((await post('{not json')).status, 400);
    // Every point malformed: nothing reaches the windows, and the rejections are still counted.
    const malformed = {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: MILESTONE_METRIC.end,
                  exponentialHistogram: {
                    aggregationTemporality: 2,
                    dataPoints: [
                      {
                        attributes: [{ key: ATTR.lane, value: { stringValue: 'fast' } }],
                        timeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
                        count: '2',
                        scale: 3,
                        zeroCount: '0',
                        positive: { offset: 0, bucketCounts: ['1'] },
                      },
                    ],
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    assert.equal((await post(JSON.stringify(malformed))).status, 200);
    const I = PROCESSOR_INSTRUMENT;
    const status = (code: number) => (points: readonly SinkPoint[]) =>
      points.find(
        (p) => p.metric === I.ingestRequests.name && p.attributes[TELEMETRY_ATTR.statusCode] === code,
      );
    const { points } = await sink.waitFor(
      (points) =>
        status(400)(points) !== undefined &&
        (status(200)(points)?.value ?? 0) >= 2 &&
        only(points, I.ingestPoints.name, { [TELEMETRY_ATTR.ingestResult]: 'rejected' })[0]?.value === 1,
      from,
    );
    assert.equal(status(400)(points)?.value, 1);
    const accepted = pointValue(points, I.ingestPoints.name, { [TELEMETRY_ATTR.ingestResult]: 'accepted' });
    // fast: ok on two histograms; slow: ok on two, error on one.
    assert.equal(accepted, 5);
    const requests = only(points, I.ingestRequests.name, {})[0] as SinkPoint;
    assert.equal(requests.kind, 'sum');
    assert.equal(requests.monotonic, true);
  });

  it('counts admission decisions on the processor meter, with the lane, never the job', async () => {
    const from = sink.requests.length;
    const admission = createAdmissionController({
      reader: await createLaneReader(processor.url),
      meter: processor.meter,
    });
    // Fields a caller's job may carry that must never leave: admit reads only id, deadline and classes.
    const job = (id: string, deadline_s: number) =>
      ({
        id,
        deadline_s,
        prompt: `${CANARY} the prompt`,
        api_key: `sk-${CANARY}`,
        headers: { authorization: `Bearer ${CANARY}` },
      }) as AdmissionJob;
    const first = await admission.admit(job('job-1', 60));
    const second = await admission.admit(job('job-2', 60));
    const refused = await admission.admit(job(`${CANARY} job`, 1.01));
    assert.equal(first.lane, 'fast');
    assert.equal(second.lane, 'fast');
    assert.equal(refused.admitted, false);

    const I = PROCESSOR_INSTRUMENT;
    const decisions = (points: readonly SinkPoint[]) => only(points, I.admissionDecisions.name, {});
    const { points } = await sink.waitFor((points) => decisions(points).length === 2, from);
    assert.deepEqual(
      decisions(points)
        .map((p) => [p.attributes, p.value])
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      [
        [
          {
            [TELEMETRY_ATTR.decision]: 'admitted',
            [TELEMETRY_ATTR.reason]: 'within_budget',
            [TELEMETRY_ATTR.lane]: 'fast',
          },
          2,
        ],
        [{ [TELEMETRY_ATTR.decision]: 'refused', [TELEMETRY_ATTR.reason]: 'over_budget' }, 1],
      ],
    );
  });

  it('exports the last values on graceful shutdown', async () => {
    const from = sink.requests.length;
    const quiet = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      windows: createAggregationWindows({ windowS: 300, sliceS: 10 }),
      intervalS: 3600,
      windowS: 300,
      metricsExport: { url: `${sink.url}/v1/metrics`, protocol: 'http/json' }, // every intervalS: never here
    });
    const fromQuiet = () =>
      sink.requests
        .slice(from)
        .filter((r) => r.points[0]?.resource['service.instance.id'] === `${hostname()}:${quiet.port}`);
    try {
      await exportFromApp(`${quiet.url}/v1/metrics`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(fromQuiet().length, 0, 'nothing before the interval');
    } finally {
      await quiet.close();
    }
    const exported = fromQuiet();
    assert.equal(exported.length, 1, 'one export, at shutdown');
    assert.ok(hasBothLanes(exported[0]?.points ?? []), 'with the records of the last evaluation');
  });

  it('logs a failing export once, and refuses a bad export setting without keeping the port', async () => {
    const lines: string[] = [];
    const dead = await startOtlpJsonSink();
    const deadUrl = `${dead.url}/v1/metrics`;
    await dead.close(); // nothing listens there now
    const store = createMemoryStore();
    await store.write([exampleRecord('fast')]); // something to export
    const failing = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store,
      intervalS: 3600,
      windowS: 300,
      metricsExport: { url: deadUrl, protocol: 'http/json', intervalMs: 50 },
      log: (line) => lines.push(line),
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await failing.close();
    const failures = lines.filter((line) => line.startsWith('metrics export failed: '));
    assert.equal(failures.length, 1, lines.join('\n'));
    assert.ok(!failures[0]?.includes(deadUrl), 'a class, not the URL');

    const port = failing.port; // free again
    const options = { port, host: '127.0.0.1', store: createMemoryStore(), intervalS: 3600, windowS: 300 };
    await assert.rejects(startProcessor({ ...options, metricsExport: { url: deadUrl, intervalMs: 0 } }));
    const again = await startProcessor(options);
    await again.close();
  });

  it('speaks OTLP/HTTP protobuf unless told otherwise', async () => {
    const seen: { type: string | undefined; bytes: number }[] = [];
    const receiver = createServer(async (req, res) => {
      let bytes = 0;
      for await (const chunk of req) bytes += (chunk as Buffer).length;
      seen.push({ type: req.headers['content-type'], bytes });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/metrics`;
    const store = createMemoryStore();
    await store.write([exampleRecord('fast')]);
    const proto = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store,
      intervalS: 3600,
      windowS: 300,
      metricsExport: { url },
    });
    await proto.close();
    receiver.close();
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.type, 'application/x-protobuf');
    assert.ok((seen[0]?.bytes ?? 0) > 100);
  });

  it('never exports prompt text or credentials', async () => {
    await processor.close();
    assert.ok(sink.requests.length > 3);
    for (const request of sink.requests) {
      assert.ok(
        !request.text.includes(CANARY),
        `a request body carries the canary: ${request.text.slice(0, 200)}`,
      );
      assert.ok(!JSON.stringify(request.headers).includes(CANARY), 'a request header carries the canary');
      assert.equal(request.path, '/v1/metrics');
    }
  });
});
