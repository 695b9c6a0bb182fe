import type { ExplicitHistogram } from '../histogram/explicit-histogram.ts';
import type { ExponentialHistogram } from '../histogram/exponential-histogram.ts';
import { MAX_SCALE, MIN_SCALE } from '../histogram/exponential-mapping.ts';
import type {
  DecodedAnyValue,
  DecodedBuckets,
  DecodedDataPoint,
  DecodedKeyValue,
  DecodedMetric,
  DecodedRequest,
} from './decoded-request.ts';
import { type AttributeValue, type MetricsBatch, rejectPoints, type Temporality } from './histogram-point.ts';

// From a decoded request to validated histogram points. A point that breaks a rule of the OTLP data
// model is rejected on its own, with a message naming it; the rest of the request goes on.

/** metrics.proto DataPointFlags.DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK: a point without a value. */
const NO_RECORDED_VALUE = 1;

/** Which metrics to read; others are accepted and skipped (the processor has no use for them). */
export type MetricFilter = (metricName: string) => boolean;

/**
 * The one field of the `value` oneof that is set. protobufjs keeps every field's default on the
 * message prototype (`stringValue` reads `""` on an int value), so presence is an own property.
 */
function anyValue(v: DecodedAnyValue | null | undefined): AttributeValue {
  if (v == null) return '';
  if (Object.hasOwn(v, 'stringValue') && v.stringValue != null) return v.stringValue;
  if (Object.hasOwn(v, 'intValue') && v.intValue != null) return v.intValue;
  if (Object.hasOwn(v, 'doubleValue') && v.doubleValue != null) return v.doubleValue;
  if (Object.hasOwn(v, 'boolValue') && v.boolValue != null) return v.boolValue;
  // Arrays, maps and bytes never carry lanewatch attributes; they only need to stay distinct.
  if (Object.hasOwn(v, 'arrayValue') && v.arrayValue != null)
    return JSON.stringify((v.arrayValue.values ?? []).map(anyValue));
  if (Object.hasOwn(v, 'kvlistValue') && v.kvlistValue != null)
    return JSON.stringify(attributesOf(v.kvlistValue.values));
  if (Object.hasOwn(v, 'bytesValue') && v.bytesValue != null)
    return Buffer.from(v.bytesValue).toString('base64');
  return '';
}

export function attributesOf(list: DecodedKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  if (list === undefined) return out;
  for (const kv of list) out[kv.key ?? ''] = anyValue(kv.value);
  return out;
}

/**
 * Canonical text of an attribute set: sorted keys, typed values, separated by control characters
 * (attribute keys and values are UTF-8 text in practice; a key containing U+0000 or U+0001 could
 * collide with another set, which costs nothing worse than two streams sharing deltas).
 */
export function attributeKey(attributes: Readonly<Record<string, AttributeValue>>): string {
  const keys = Object.keys(attributes);
  if (keys.length > 1) keys.sort();
  let key = '';
  for (const k of keys) {
    const v = attributes[k];
    key += `${k}\u0000${typeof v === 'string' ? 's' : typeof v === 'number' ? 'n' : 'b'}${v}\u0001`;
  }
  return key;
}

function nanosToMs(nanos: number | undefined): number {
  return typeof nanos === 'number' && Number.isFinite(nanos) ? nanos / 1e6 : 0;
}

function optionalNumber(v: number | null | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function bucketsOf(
  b: DecodedBuckets | null | undefined,
): { offset: number; counts: number[]; total: number } | string {
  const counts = b?.bucketCounts ?? [];
  // The schema makes every count a uint64: a non-negative integer from either decoder. The total is
  // checked against the point's count below, which catches counts beyond 2^53 as well.
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += counts[i] as number;
  const offset = b?.offset ?? 0;
  if (!Number.isInteger(offset)) return `bucket offset ${offset} is not an integer`;
  return { offset, counts, total };
}

function readExponential(p: DecodedDataPoint): ExponentialHistogram | string {
  const scale = p.scale ?? 0;
  if (!Number.isInteger(scale) || scale < MIN_SCALE || scale > MAX_SCALE) {
    return `scale ${scale} is outside [${MIN_SCALE}, ${MAX_SCALE}]`;
  }
  const count = p.count ?? 0;
  const zeroCount = p.zeroCount ?? 0;
  if (!isCount(count)) return `count ${count} is not a count`;
  if (!isCount(zeroCount)) return `zeroCount ${zeroCount} is not a count`;
  const zeroThreshold = p.zeroThreshold ?? 0;
  if (!(zeroThreshold >= 0) || !Number.isFinite(zeroThreshold)) {
    return `zeroThreshold ${zeroThreshold} must be a finite number ≥ 0`;
  }
  const positive = bucketsOf(p.positive);
  if (typeof positive === 'string') return `positive: ${positive}`;
  const negative = bucketsOf(p.negative);
  if (typeof negative === 'string') return `negative: ${negative}`;
  const total = zeroCount + positive.total + negative.total;
  if (total !== count) return `zeroCount and bucket counts add up to ${total}, but count is ${count}`;
  return {
    scale,
    count,
    sum: optionalNumber(p.sum),
    min: optionalNumber(p.min),
    max: optionalNumber(p.max),
    zeroCount,
    zeroThreshold,
    positive: { offset: positive.offset, counts: positive.counts },
    negative: { offset: negative.offset, counts: negative.counts },
  };
}

function readExplicit(p: DecodedDataPoint): ExplicitHistogram | string | undefined {
  const count = p.count ?? 0;
  if (!isCount(count)) return `count ${count} is not a count`;
  const counts = p.bucketCounts ?? [];
  const bounds = p.explicitBounds ?? [];
  // A point without buckets carries only count and sum: valid, but nothing to estimate from.
  if (counts.length === 0) return undefined;
  if (counts.length !== bounds.length + 1) {
    return `${counts.length} bucket counts for ${bounds.length} bounds (must be bounds + 1)`;
  }
  for (let i = 0; i < bounds.length; i++) {
    const b = bounds[i] as number;
    if (!Number.isFinite(b) || (i > 0 && b <= (bounds[i - 1] as number))) {
      return `explicitBounds must be finite and strictly increasing (at ${i}: ${b})`;
    }
  }
  let total = 0;
  for (const c of counts) {
    if (!isCount(c)) return `bucket count ${c} is not a count`;
    total += c;
  }
  if (total !== count) return `bucket counts add up to ${total}, but count is ${count}`;
  return {
    bounds,
    counts,
    count,
    sum: optionalNumber(p.sum),
    min: optionalNumber(p.min),
    max: optionalNumber(p.max),
  };
}

function temporalityOf(code: number | undefined): Temporality | undefined {
  // metrics.proto AggregationTemporality: 1 DELTA, 2 CUMULATIVE (0 UNSPECIFIED is invalid).
  return code === 1 ? 'delta' : code === 2 ? 'cumulative' : undefined;
}

/** The OpenTelemetry instrument name syntax: what a metric name quoted in a message must be. */
const INSTRUMENT_NAME = /^[A-Za-z][A-Za-z0-9_./-]{0,254}$/;

/**
 * Where a point sits in the request, for error messages a user can find it by. The metric's name is
 * quoted only when it is an instrument name: anything else a sender put there stays out of messages.
 */
export function metricPath(r: number, s: number, m: number, metric: string): string {
  const name = INSTRUMENT_NAME.test(metric) ? JSON.stringify(metric) : 'not an instrument name';
  return `resourceMetrics[${r}].scopeMetrics[${s}].metrics[${m}] (${name})`;
}

export function pointPath(r: number, s: number, m: number, metric: string, kind: string, p: number): string {
  return `${metricPath(r, s, m, metric)}.${kind}.dataPoints[${p}]`;
}

/**
 * Reads the histogram points of one metric into `batch`. `streamPrefix` identifies the resource and
 * scope the metric came from.
 */
export function readMetricPoints(
  metric: DecodedMetric,
  streamPrefix: string,
  batch: MetricsBatch,
  path: (kind: string, point: number) => string,
): void {
  const name = metric.name ?? '';
  const exponential = metric.exponentialHistogram;
  const explicit = exponential == null ? metric.histogram : null;
  const data = exponential ?? explicit;
  if (data == null) return;
  const kind = exponential != null ? 'exponentialHistogram' : 'histogram';
  const points = data.dataPoints ?? [];
  const temporality = temporalityOf(data.aggregationTemporality);
  if (temporality === undefined) {
    rejectPoints(
      batch,
      points.length,
      `${path(kind, 0)}: aggregationTemporality must be DELTA (1) or CUMULATIVE (2)`,
    );
    return;
  }
  const metricPrefix = `${streamPrefix}${name}\u0002`;
  for (let i = 0; i < points.length; i++) {
    const p = points[i] as DecodedDataPoint;
    if (((p.flags ?? 0) & NO_RECORDED_VALUE) !== 0) continue;
    const timeMs = nanosToMs(p.timeUnixNano);
    if (timeMs <= 0) {
      rejectPoints(batch, 1, `${path(kind, i)}: timeUnixNano is missing`);
      continue;
    }
    const read = exponential != null ? readExponential(p) : readExplicit(p);
    if (read === undefined) continue;
    if (typeof read === 'string') {
      rejectPoints(batch, 1, `${path(kind, i)}: ${read}`);
      continue;
    }
    const attributes = attributesOf(p.attributes);
    batch.points.push({
      metric: name,
      stream: metricPrefix + attributeKey(attributes),
      temporality,
      attributes,
      startTimeMs: nanosToMs(p.startTimeUnixNano),
      timeMs,
      data:
        exponential != null
          ? { kind: 'exponential', histogram: read as ExponentialHistogram }
          : { kind: 'explicit', histogram: read as ExplicitHistogram },
    });
  }
}

export function resourcePrefix(resourceAttributes: DecodedKeyValue[] | undefined): string {
  return `${attributeKey(attributesOf(resourceAttributes))}\u0002`;
}

export function scopePrefix(scope: { name?: string; version?: string } | null | undefined): string {
  return `${scope?.name ?? ''}\u0000${scope?.version ?? ''}\u0002`;
}

/** Reads every wanted histogram point of a whole decoded request into `batch`. */
export function readRequestPoints(request: DecodedRequest, batch: MetricsBatch, wanted?: MetricFilter): void {
  const resources = request.resourceMetrics ?? [];
  for (let r = 0; r < resources.length; r++) {
    const rm = resources[r];
    if (rm == null) continue;
    const resourceKey = resourcePrefix(rm.resource?.attributes);
    const scopes = rm.scopeMetrics ?? [];
    for (let s = 0; s < scopes.length; s++) {
      const sm = scopes[s];
      if (sm == null) continue;
      const prefix = resourceKey + scopePrefix(sm.scope);
      const metrics = sm.metrics ?? [];
      for (let m = 0; m < metrics.length; m++) {
        const metric = metrics[m] as DecodedMetric;
        const name = metric.name ?? '';
        if (wanted !== undefined && !wanted(name)) continue;
        readMetricPoints(metric, prefix, batch, (kind, p) => pointPath(r, s, m, name, kind, p));
      }
    }
  }
}
