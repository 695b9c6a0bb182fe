import type protobuf from 'protobufjs';
import protojson from 'protobufjs/ext/protojson.js';
import { OtlpDecodeError } from './decode-error.ts';
import type {
  DecodedDataPoint,
  DecodedMetric,
  DecodedResourceMetrics,
  DecodedScopeMetrics,
} from './decoded-request.ts';
import { emptyBatch, type MetricsBatch, rejectPoints } from './histogram-point.ts';
import { dataPointTypes, METRIC_DATA_KINDS, metricType, resourceType, scopeType } from './otlp-schema.ts';
import { type MetricFilter, metricPath, readRequestPoints } from './read-points.ts';

// OTLP/HTTP JSON: the proto3 JSON mapping (protobufjs's ProtoJSON reader over the same schema) with
// the OTLP spec's two exceptions: trace and span ids are hex, not base64, and enums are integers
// (names are accepted too). Unknown fields are ignored, as the spec asks of receivers.
//
// The request is read level by level rather than in one call so that one bad data point costs that
// point, not the batch: resource, scope and metric envelopes first, then each data point on its own.

const OPTIONS = { ignoreUnknownFields: true };
type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function arrayAt(v: Json, key: string, where: string): unknown[] {
  const value = v[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${where}.${key} must be an array`);
  return value;
}

function parse<T>(type: protobuf.Type, json: unknown): T {
  return protojson.fromJson(type, json, OPTIONS) as T;
}

/**
 * What protobufjs's ProtoJSON reader found wrong, without the value it found: its messages end with
 * the offending value (`…AnyValue.intValue: invalid integer: "…"`, or a whole object after
 * `expected object`), which may be anything a sender put in an attribute. Only the field and the
 * problem go into a rejection, which the sender's exporter may log.
 */
function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const problem = /^(\.?[\w.]+): ([a-z][a-z0-9 ]*?)(?=: |$)/i.exec(message);
  if (problem !== null) return `${problem[1]}: ${problem[2]}`;
  return /^[a-z][a-z0-9 ]*$/i.test(message) ? message : 'a value that does not fit the OTLP schema';
}

/** A JSON syntax error without V8's message, which quotes a piece of the body. */
function syntaxErrorOf(error: unknown): string {
  const at = error instanceof Error ? /at position (\d+)/.exec(error.message)?.[1] : undefined;
  return at === undefined ? 'a JSON syntax error' : `a JSON syntax error at position ${at}`;
}

const HEX_ID = /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{16})$/;

/** OTLP JSON encodes exemplar trace/span ids as hex; ProtoJSON reads bytes as base64. */
function withBase64Ids(point: unknown): unknown {
  if (!isObject(point) || !Array.isArray(point.exemplars)) return point;
  const exemplars = point.exemplars.map((e: unknown) => {
    if (!isObject(e)) return e;
    const copy = { ...e };
    for (const key of ['traceId', 'spanId', 'trace_id', 'span_id']) {
      const id = copy[key];
      if (typeof id === 'string' && HEX_ID.test(id)) copy[key] = Buffer.from(id, 'hex').toString('base64');
    }
    return copy;
  });
  return { ...point, exemplars };
}

function countDataPoints(metric: unknown): number {
  if (!isObject(metric)) return 1;
  for (const kind of METRIC_DATA_KINDS) {
    const data = metric[kind];
    if (isObject(data) && Array.isArray(data.dataPoints)) return data.dataPoints.length;
  }
  return 0;
}

function readMetric(
  raw: unknown,
  path: string,
  batch: MetricsBatch,
  wanted?: MetricFilter,
): DecodedMetric | undefined {
  if (!isObject(raw)) {
    rejectPoints(batch, 1, `${path}: a metric must be an object`);
    return undefined;
  }
  if (wanted !== undefined && typeof raw.name === 'string' && !wanted(raw.name)) return undefined;
  const kind = METRIC_DATA_KINDS.find((k) => raw[k] !== undefined && raw[k] !== null);
  const shell: Json = { ...raw };
  let rawPoints: unknown[] = [];
  if (kind !== undefined) {
    const data = raw[kind];
    if (isObject(data)) {
      rawPoints = Array.isArray(data.dataPoints) ? data.dataPoints : [];
      shell[kind] = { ...data, dataPoints: [] };
    }
  }
  let metric: DecodedMetric;
  try {
    metric = parse<DecodedMetric>(metricType, shell);
  } catch (error) {
    rejectPoints(batch, Math.max(rawPoints.length, 1), `${path}: ${messageOf(error)}`);
    return undefined;
  }
  if (kind !== 'histogram' && kind !== 'exponentialHistogram') return metric;
  const data = metric[kind];
  if (data == null) return metric;
  const pointType = dataPointTypes[kind];
  const points: DecodedDataPoint[] = [];
  rawPoints.forEach((rawPoint, i) => {
    try {
      points.push(parse<DecodedDataPoint>(pointType, withBase64Ids(rawPoint)));
    } catch (error) {
      rejectPoints(batch, 1, `${path}.${kind}.dataPoints[${i}]: ${messageOf(error)}`);
    }
  });
  data.dataPoints = points;
  return metric;
}

function countMetricPoints(metrics: unknown[]): number {
  return metrics.reduce<number>((n, m) => n + countDataPoints(m), 0);
}

function readScope(
  sm: unknown,
  r: number,
  s: number,
  batch: MetricsBatch,
  wanted: MetricFilter | undefined,
): DecodedScopeMetrics {
  const at = `resourceMetrics[${r}].scopeMetrics[${s}]`;
  if (!isObject(sm)) throw new OtlpDecodeError(`${at} must be an object`);
  const rawMetrics = arrayAt(sm, 'metrics', at);
  let scope: DecodedScopeMetrics['scope'] = null;
  try {
    scope = sm.scope == null ? null : parse(scopeType, sm.scope);
  } catch (error) {
    rejectPoints(batch, countMetricPoints(rawMetrics), `${at}.scope: ${messageOf(error)}`);
    return { scope: null, metrics: [] };
  }
  // A metric that could not be read stays as an empty placeholder so that later messages keep
  // the indices of the request as sent.
  const metrics = rawMetrics.map((m, i) => {
    const name = isObject(m) && typeof m.name === 'string' ? m.name : '';
    return readMetric(m, metricPath(r, s, i, name), batch, wanted) ?? {};
  });
  return { scope, metrics };
}

/**
 * Decodes an OTLP/HTTP JSON ExportMetricsServiceRequest. Text that is not JSON, or not shaped like a
 * request at the top, throws `OtlpDecodeError`; a bad resource, scope, metric or data point rejects
 * the points under it and the rest is kept.
 */
export function decodeJsonRequest(text: string, wanted?: MetricFilter): MetricsBatch {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new OtlpDecodeError(`body is not JSON: ${syntaxErrorOf(error)}`);
  }
  if (!isObject(json))
    throw new OtlpDecodeError('body must be a JSON object (an ExportMetricsServiceRequest)');
  const batch = emptyBatch();
  const resourceMetrics = arrayAt(json, 'resourceMetrics', 'request').map((rm, r): DecodedResourceMetrics => {
    const where = `resourceMetrics[${r}]`;
    if (!isObject(rm)) throw new OtlpDecodeError(`${where} must be an object`);
    const scopes = arrayAt(rm, 'scopeMetrics', where);
    let resource: DecodedResourceMetrics['resource'] = null;
    try {
      resource = rm.resource == null ? null : parse(resourceType, rm.resource);
    } catch (error) {
      const points = scopes.reduce<number>(
        (n, sm) => n + (isObject(sm) && Array.isArray(sm.metrics) ? countMetricPoints(sm.metrics) : 0),
        0,
      );
      rejectPoints(batch, points, `${where}.resource: ${messageOf(error)}`);
      return {};
    }
    return { resource, scopeMetrics: scopes.map((sm, s) => readScope(sm, r, s, batch, wanted)) };
  });
  readRequestPoints({ resourceMetrics }, batch);
  return batch;
}
