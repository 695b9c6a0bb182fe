import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { histogramOf } from '../histogram/exponential-histogram.ts';
import { lognormalSamples } from '../histogram/random-samples.ts';
import { OtlpDecodeError } from './decode-error.ts';
import { decodeJsonRequest } from './decode-json.ts';
import { decodeProtobufRequest } from './decode-protobuf.ts';
import {
  exportRequestJson,
  exportRequestProtobuf,
  type FixtureMetric,
} from './request-fixture.test-helper.ts';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const lane = { 'lanewatch.lane': 'fast', 'lanewatch.outcome': 'ok' };

function metric(instance: string, samples: number[]): FixtureMetric {
  return {
    resource: { 'service.name': 'app', 'service.instance.id': instance },
    name: 'lanewatch.time_to_first_text',
    temporality: 'cumulative',
    points: [{ attributes: lane, startTimeMs: T0, timeMs: T0 + 60_000, histogram: histogramOf(samples) }],
  };
}

// biome-ignore lint/suspicious/noExplicitAny: the tests reshape OTLP JSON trees freely
type Json = Record<string, any>;
const twoInstances = () =>
  exportRequestJson([metric('a', lognormalSamples(500, 1)), metric('b', [0.2, 0.3])]);

describe('decoding ExportMetricsServiceRequest', () => {
  it('keeps integer, double and boolean attributes as themselves in protobuf (a 500 is not a 503)', () => {
    const typed = (status: number): FixtureMetric => ({
      ...metric('a', [0.2]),
      points: [
        {
          attributes: { ...lane, 'http.response.status_code': status, ratio: 0.5, retried: true },
          startTimeMs: T0,
          timeMs: T0 + 60_000,
          histogram: histogramOf([0.2]),
        },
      ],
    });
    const json = exportRequestJson([typed(500), typed(503)]);
    const fromProtobuf = decodeProtobufRequest(exportRequestProtobuf(json));
    const statuses = fromProtobuf.points.map((p) => p.attributes['http.response.status_code']);
    assert.deepEqual(statuses, [500, 503]);
    assert.equal(fromProtobuf.points[0]?.attributes.ratio, 0.5);
    assert.equal(fromProtobuf.points[0]?.attributes.retried, true);
    assert.deepEqual(fromProtobuf, decodeJsonRequest(JSON.stringify(json)));
  });

  it('reads the same points from protobuf and from JSON', () => {
    const json = twoInstances();
    const fromJson = decodeJsonRequest(JSON.stringify(json));
    const fromProtobuf = decodeProtobufRequest(exportRequestProtobuf(json));
    assert.equal(fromJson.rejected, 0);
    assert.equal(fromJson.points.length, 2);
    assert.deepEqual(fromProtobuf, fromJson);
    const [a, b] = fromJson.points;
    assert.equal(a?.temporality, 'cumulative');
    assert.equal(a?.timeMs, T0 + 60_000);
    assert.equal(a?.startTimeMs, T0);
    assert.deepEqual(a?.attributes, lane);
    assert.equal(a?.data.kind === 'exponential' && a.data.histogram.count, 500);
    assert.notEqual(a?.stream, b?.stream, 'instances are separate streams');
  });

  it('accepts int64 as numbers or strings and enums as names (proto3 JSON)', () => {
    const json: Json = twoInstances();
    const m = json.resourceMetrics[1].scopeMetrics[0].metrics[0];
    m.exponentialHistogram.aggregationTemporality = 'AGGREGATION_TEMPORALITY_DELTA';
    const p = m.exponentialHistogram.dataPoints[0];
    p.timeUnixNano = Number(p.timeUnixNano);
    p.count = String(p.count);
    p.positive.bucketCounts = p.positive.bucketCounts.map(String);
    const batch = decodeJsonRequest(JSON.stringify(json));
    assert.equal(batch.rejected, 0);
    assert.equal(batch.points[1]?.temporality, 'delta');
    assert.equal(batch.points[1]?.data.histogram.count, 2);
  });

  it('ignores unknown fields and reads hex exemplar ids', () => {
    const json: Json = twoInstances();
    json.somethingNew = true;
    const p = json.resourceMetrics[0].scopeMetrics[0].metrics[0].exponentialHistogram.dataPoints[0];
    p.futureField = 1;
    p.exemplars = [
      { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', asDouble: 0.3 },
    ];
    const batch = decodeJsonRequest(JSON.stringify(json));
    assert.equal(batch.rejected, 0);
    assert.equal(batch.points.length, 2);
  });

  it('rejects a malformed point and keeps the rest of the batch (JSON)', () => {
    const json: Json = twoInstances();
    const points = json.resourceMetrics[0].scopeMetrics[0].metrics[0].exponentialHistogram.dataPoints;
    points.push({ ...points[0], positive: { offset: 0, bucketCounts: ['x'] } });
    const batch = decodeJsonRequest(JSON.stringify(json));
    assert.equal(batch.points.length, 2);
    assert.equal(batch.rejected, 1);
    assert.match(
      batch.errors[0] ?? '',
      /resourceMetrics\[0]\.scopeMetrics\[0]\.metrics\[0] \("lanewatch\.time_to_first_text"\)\.exponentialHistogram\.dataPoints\[1]/,
    );
  });

  it('rejects points whose counts do not add up, in protobuf too', () => {
    const json: Json = twoInstances();
    json.resourceMetrics[1].scopeMetrics[0].metrics[0].exponentialHistogram.dataPoints[0].count = 3;
    for (const batch of [
      decodeJsonRequest(JSON.stringify(json)),
      decodeProtobufRequest(exportRequestProtobuf(json)),
    ]) {
      assert.equal(batch.points.length, 1);
      assert.equal(batch.rejected, 1);
      assert.match(batch.errors[0] ?? '', /add up to 2, but count is 3/);
    }
  });

  it('rejects a metric without temporality and a scale out of range', () => {
    const json: Json = twoInstances();
    json.resourceMetrics[0].scopeMetrics[0].metrics[0].exponentialHistogram.aggregationTemporality = 0;
    json.resourceMetrics[1].scopeMetrics[0].metrics[0].exponentialHistogram.dataPoints[0].scale = 21;
    const batch = decodeJsonRequest(JSON.stringify(json));
    assert.equal(batch.points.length, 0);
    assert.equal(batch.rejected, 2);
    assert.match(batch.errors.join('\n'), /aggregationTemporality must be DELTA \(1\) or CUMULATIVE \(2\)/);
    assert.match(batch.errors.join('\n'), /scale 21 is outside \[-10, 20]/);
  });

  it('rejects the points of a metric whose envelope is malformed', () => {
    const json: Json = twoInstances();
    json.resourceMetrics[0].scopeMetrics[0].metrics[0].name = 42;
    const batch = decodeJsonRequest(JSON.stringify(json));
    assert.equal(batch.points.length, 1);
    assert.equal(batch.rejected, 1);
    assert.match(batch.errors[0] ?? '', /expected string/);
  });

  it('skips points flagged as having no recorded value', () => {
    const json: Json = twoInstances();
    json.resourceMetrics[0].scopeMetrics[0].metrics[0].exponentialHistogram.dataPoints[0].flags = 1;
    const batch = decodeJsonRequest(JSON.stringify(json));
    assert.equal(batch.points.length, 1);
    assert.equal(batch.rejected, 0);
  });

  it('reads explicit-bucket histograms and checks their layout', () => {
    const point = (counts: number[]) => ({
      attributes: [],
      timeUnixNano: '1796028563913000000',
      count: counts.reduce((s, c) => s + c, 0),
      explicitBounds: [0.1, 1],
      bucketCounts: counts,
    });
    const json = {
      resourceMetrics: [
        {
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'h',
                  histogram: { aggregationTemporality: 1, dataPoints: [point([1, 2, 3]), point([1, 2])] },
                },
              ],
            },
          ],
        },
      ],
    };
    const batch = decodeJsonRequest(JSON.stringify(json));
    assert.equal(batch.points.length, 1);
    assert.equal(batch.points[0]?.data.kind, 'explicit');
    assert.match(batch.errors[0] ?? '', /2 bucket counts for 2 bounds/);
  });

  it('reads only the wanted metrics', () => {
    const batch = decodeJsonRequest(
      JSON.stringify(twoInstances()),
      (name) => name !== 'lanewatch.time_to_first_text',
    );
    assert.equal(batch.points.length, 0);
    assert.equal(batch.rejected, 0);
  });

  it('refuses a body that is not a request at all', () => {
    assert.throws(() => decodeJsonRequest('{"resourceMetrics": ['), OtlpDecodeError);
    assert.throws(() => decodeJsonRequest('[1]'), /must be a JSON object/);
    assert.throws(() => decodeJsonRequest('{"resourceMetrics": 3}'), /resourceMetrics must be an array/);
    assert.throws(() => decodeProtobufRequest(Buffer.from('this is not protobuf at all')), OtlpDecodeError);
  });

  it('never repeats what a sender put in a value, a key or a malformed body in an error message', () => {
    const CANARY = 'CANARY-PROMPT-TEXT';
    const messages: string[] = [];
    const refused = (text: string) => {
      try {
        messages.push(...decodeJsonRequest(text).errors);
      } catch (error) {
        assert.ok(error instanceof OtlpDecodeError);
        messages.push(error.message);
      }
    };
    // Bodies that are not JSON: V8's own message quotes the body around the error.
    refused(`{"resourceMetrics": ${CANARY}}`);
    refused(CANARY);
    refused(`{"resourceMetrics": [{"resource": "${CANARY}" x`);
    // Values of the wrong type anywhere the ProtoJSON reader looks (it quotes the value it refuses).
    const json: Json = twoInstances();
    const [first, second] = json.resourceMetrics;
    // A bad resource or scope rejects everything under it: each gets a request of its own.
    const badResource = structuredClone(first);
    badResource.resource.attributes.push({ key: 'gen_ai.prompt', value: { intValue: CANARY } });
    const badScope = structuredClone(first);
    badScope.scopeMetrics[0].scope = { name: 'x', version: { text: CANARY } };
    refused(JSON.stringify({ resourceMetrics: [badResource, badScope] }));
    const points = second.scopeMetrics[0].metrics[0].exponentialHistogram.dataPoints;
    points.push({ ...points[0], count: CANARY });
    points.push({ ...points[0], attributes: [{ key: 'gen_ai.completion', value: { boolValue: CANARY } }] });
    points.push({ ...points[0], positive: { offset: 0, bucketCounts: [CANARY] } });
    second.scopeMetrics[0].metrics.push({ name: CANARY, gauge: { dataPoints: [{ asDouble: CANARY }] } });
    refused(JSON.stringify(json));
    assert.ok(messages.length >= 8, messages.join('\n'));
    for (const message of messages) assert.ok(!message.includes('CANARY'), message);
    // What is left still says where and what.
    assert.ok(
      messages.some((m) => /AnyValue\.intValue: invalid integer$/.test(m)),
      messages.join('\n'),
    );
    assert.ok(messages.some((m) => /body is not JSON: a JSON syntax error at position \d+/.test(m)));
  });
});
