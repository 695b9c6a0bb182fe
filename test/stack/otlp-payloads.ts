// OTLP/JSON payloads for the collector tests, built by hand so every field (scale, temporality,
// timestamps, attributes) is exactly what the test means to send.

export type AttributeValue = string | number | boolean | readonly string[];
interface OtlpKeyValue {
  key: string;
  value:
    | { stringValue: string }
    | { intValue: string }
    | { doubleValue: number }
    | { boolValue: boolean }
    | { arrayValue: { values: { stringValue: string }[] } };
}

export function otlpAttributes(attributes: Readonly<Record<string, AttributeValue>>): OtlpKeyValue[] {
  return Object.entries(attributes).map(([key, value]): OtlpKeyValue => {
    if (typeof value === 'string') return { key, value: { stringValue: value } };
    if (typeof value === 'boolean') return { key, value: { boolValue: value } };
    if (typeof value === 'number') {
      return Number.isInteger(value)
        ? { key, value: { intValue: String(value) } }
        : { key, value: { doubleValue: value } };
    }
    return { key, value: { arrayValue: { values: value.map((v) => ({ stringValue: v })) } } };
  });
}

/** OTLP's AGGREGATION_TEMPORALITY_CUMULATIVE. */
const CUMULATIVE = 2;

/**
 * One cumulative exponential-histogram point holding `values` at `scale`. Bucket i covers
 * (base^i, base^(i+1)] with base = 2^(2^-scale) (OTLP metrics data model, "Exponential Buckets").
 */
export function exponentialPoint(options: {
  values: readonly number[];
  scale: number;
  attributes: Readonly<Record<string, AttributeValue>>;
  startNs: bigint;
  timeNs: bigint;
}) {
  const indices = options.values.map((value) => Math.ceil(Math.log2(value) * 2 ** options.scale) - 1);
  const offset = Math.min(...indices);
  const counts = new Array<number>(Math.max(...indices) - offset + 1).fill(0);
  for (const index of indices) counts[index - offset] = (counts[index - offset] ?? 0) + 1;
  return {
    attributes: otlpAttributes(options.attributes),
    startTimeUnixNano: String(options.startNs),
    timeUnixNano: String(options.timeNs),
    count: String(options.values.length),
    sum: options.values.reduce((a, b) => a + b, 0),
    scale: options.scale,
    zeroCount: '0',
    positive: { offset, bucketCounts: counts.map(String) },
    negative: { offset: 0, bucketCounts: [] },
    min: Math.min(...options.values),
    max: Math.max(...options.values),
  };
}

export interface HistogramMetric {
  name: string;
  unit: string;
  points: ReturnType<typeof exponentialPoint>[];
}

export function metricsRequest(
  resource: Readonly<Record<string, AttributeValue>>,
  metrics: readonly HistogramMetric[],
  scopeAttributes: Readonly<Record<string, AttributeValue>> = {},
) {
  return {
    resourceMetrics: [
      {
        resource: { attributes: otlpAttributes(resource) },
        scopeMetrics: [
          {
            scope: {
              name: '@lanewatch/instrumentation',
              version: '0.0.0-test',
              attributes: otlpAttributes(scopeAttributes),
            },
            metrics: metrics.map((metric) => ({
              name: metric.name,
              unit: metric.unit,
              exponentialHistogram: { aggregationTemporality: CUMULATIVE, dataPoints: metric.points },
            })),
          },
        ],
      },
    ],
  };
}

export function traceRequest(options: {
  resource: Readonly<Record<string, AttributeValue>>;
  /** 16 hex digits. */
  spanId: string;
  spanName: string;
  spanAttributes: Readonly<Record<string, AttributeValue>>;
  events: readonly { name: string; attributes: Readonly<Record<string, AttributeValue>> }[];
  startNs: bigint;
  endNs: bigint;
  scopeAttributes?: Readonly<Record<string, AttributeValue>>;
}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes(options.resource) },
        scopeSpans: [
          {
            scope: {
              name: '@lanewatch/instrumentation',
              version: '0.0.0-test',
              attributes: otlpAttributes(options.scopeAttributes ?? {}),
            },
            spans: [
              {
                traceId: '5b8efff798038103d269b633813fc60c',
                spanId: options.spanId,
                name: options.spanName,
                kind: 3, // SPAN_KIND_CLIENT
                startTimeUnixNano: String(options.startNs),
                endTimeUnixNano: String(options.endNs),
                attributes: otlpAttributes(options.spanAttributes),
                events: options.events.map((event) => ({
                  name: event.name,
                  timeUnixNano: String(options.startNs + 1_000_000n),
                  attributes: otlpAttributes(event.attributes),
                })),
                status: { code: 1 },
              },
            ],
          },
        ],
      },
    ],
  };
}

export function logsRequest(options: {
  resource: Readonly<Record<string, AttributeValue>>;
  records: readonly {
    eventName?: string;
    body: string;
    attributes: Readonly<Record<string, AttributeValue>>;
  }[];
  timeNs: bigint;
  scopeAttributes?: Readonly<Record<string, AttributeValue>>;
}) {
  return {
    resourceLogs: [
      {
        resource: { attributes: otlpAttributes(options.resource) },
        scopeLogs: [
          {
            scope: {
              name: 'collector-config-test',
              attributes: otlpAttributes(options.scopeAttributes ?? {}),
            },
            logRecords: options.records.map((record) => ({
              timeUnixNano: String(options.timeNs),
              observedTimeUnixNano: String(options.timeNs),
              severityNumber: 9,
              severityText: 'INFO',
              ...(record.eventName === undefined ? {} : { eventName: record.eventName }),
              body: { stringValue: record.body },
              attributes: otlpAttributes(record.attributes),
            })),
          },
        ],
      },
    ],
  };
}

/** POSTs OTLP/JSON to a collector's OTLP/HTTP receiver; throws unless it is accepted. */
export async function postOtlpJson(
  baseUrl: string,
  path: '/v1/metrics' | '/v1/traces' | '/v1/logs',
  body: unknown,
) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text}`);
  return text;
}
