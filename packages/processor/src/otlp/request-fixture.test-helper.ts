import protojson from 'protobufjs/ext/protojson.js';
import type { ExponentialHistogram } from '../histogram/exponential-histogram.ts';
import { exportMetricsServiceRequest } from './otlp-schema.ts';

// Test and benchmark fixtures: OTLP JSON requests shaped exactly as the OpenTelemetry JS exporter
// sends them (timestamps as decimal strings, counts as numbers, temporality as an enum number).

export type FixtureAttributes = Readonly<Record<string, string | number | boolean>>;

export interface FixturePoint {
  readonly attributes: FixtureAttributes;
  readonly startTimeMs: number;
  readonly timeMs: number;
  readonly histogram: ExponentialHistogram;
}

export interface FixtureMetric {
  readonly resource: FixtureAttributes;
  readonly name: string;
  readonly temporality: 'delta' | 'cumulative';
  readonly points: readonly FixturePoint[];
}

function keyValues(attributes: FixtureAttributes) {
  return Object.entries(attributes).map(([key, v]) => ({
    key,
    value:
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'boolean'
          ? { boolValue: v }
          : Number.isInteger(v)
            ? { intValue: v }
            : { doubleValue: v },
  }));
}

export function nanos(ms: number): string {
  return (BigInt(Math.round(ms)) * 1_000_000n).toString();
}

export function exponentialPointJson(p: FixturePoint) {
  const h = p.histogram;
  return {
    attributes: keyValues(p.attributes),
    startTimeUnixNano: nanos(p.startTimeMs),
    timeUnixNano: nanos(p.timeMs),
    count: h.count,
    ...(h.sum === undefined ? {} : { sum: h.sum }),
    ...(h.min === undefined ? {} : { min: h.min }),
    ...(h.max === undefined ? {} : { max: h.max }),
    scale: h.scale,
    zeroCount: h.zeroCount,
    ...(h.zeroThreshold === 0 ? {} : { zeroThreshold: h.zeroThreshold }),
    positive: { offset: h.positive.offset, bucketCounts: h.positive.counts.slice() },
    negative: { offset: h.negative.offset, bucketCounts: h.negative.counts.slice() },
  };
}

function metricJson(m: FixtureMetric) {
  return {
    name: m.name,
    description: '',
    unit: 's',
    exponentialHistogram: {
      aggregationTemporality: m.temporality === 'delta' ? 1 : 2,
      dataPoints: m.points.map(exponentialPointJson),
    },
  };
}

/**
 * One ResourceMetrics per distinct resource (in order of first appearance), each with one scope
 * holding its metrics — how an SDK groups one export.
 */
export function exportRequestJson(metrics: readonly FixtureMetric[]) {
  const byResource = new Map<string, FixtureMetric[]>();
  for (const m of metrics) {
    const key = JSON.stringify(m.resource);
    const list = byResource.get(key);
    if (list === undefined) byResource.set(key, [m]);
    else list.push(m);
  }
  return {
    resourceMetrics: [...byResource.values()].map((group) => ({
      resource: { attributes: keyValues((group[0] as FixtureMetric).resource), droppedAttributesCount: 0 },
      scopeMetrics: [
        {
          scope: { name: '@lanewatch/instrumentation', version: '0.1.0' },
          metrics: group.map(metricJson),
        },
      ],
    })),
  };
}

/** The same request in binary protobuf, as the proto exporter would send it. */
export function exportRequestProtobuf(json: unknown): Uint8Array {
  const message = protojson.fromJson(exportMetricsServiceRequest, json);
  return exportMetricsServiceRequest.encode(message).finish();
}
