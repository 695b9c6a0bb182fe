// The shape protobufjs gives a decoded ExportMetricsServiceRequest (from the wire or from ProtoJSON),
// with 64-bit integers as numbers (see otlp-schema.ts). Unset scalars read their proto3 default from
// the message prototype; unset `optional` fields and oneof members are absent or null.
// This is a typed boundary: the fields are declared as read, and every value is checked before use.

export interface DecodedAnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: number | null;
  doubleValue?: number | null;
  arrayValue?: { values?: DecodedAnyValue[] } | null;
  kvlistValue?: { values?: DecodedKeyValue[] } | null;
  bytesValue?: Uint8Array | null;
}

export interface DecodedKeyValue {
  key?: string;
  value?: DecodedAnyValue | null;
}

export interface DecodedBuckets {
  offset?: number;
  bucketCounts?: number[];
}

export interface DecodedDataPoint {
  attributes?: DecodedKeyValue[];
  startTimeUnixNano?: number;
  timeUnixNano?: number;
  count?: number;
  sum?: number | null;
  min?: number | null;
  max?: number | null;
  flags?: number;
  // ExponentialHistogramDataPoint
  scale?: number;
  zeroCount?: number;
  zeroThreshold?: number;
  positive?: DecodedBuckets | null;
  negative?: DecodedBuckets | null;
  // HistogramDataPoint
  bucketCounts?: number[];
  explicitBounds?: number[];
}

export interface DecodedMetricData {
  dataPoints?: DecodedDataPoint[];
  aggregationTemporality?: number;
}

export interface DecodedMetric {
  name?: string;
  gauge?: DecodedMetricData | null;
  sum?: DecodedMetricData | null;
  histogram?: DecodedMetricData | null;
  exponentialHistogram?: DecodedMetricData | null;
  summary?: DecodedMetricData | null;
}

export interface DecodedScopeMetrics {
  scope?: { name?: string; version?: string; attributes?: DecodedKeyValue[] } | null;
  metrics?: DecodedMetric[];
}

export interface DecodedResourceMetrics {
  resource?: { attributes?: DecodedKeyValue[] } | null;
  scopeMetrics?: DecodedScopeMetrics[];
}

export interface DecodedRequest {
  resourceMetrics?: DecodedResourceMetrics[];
}
