// OTLP/HTTP metrics in: the receiver endpoint and the decoders behind it.
export { OtlpDecodeError } from './decode-error.ts';
export { decodeJsonRequest } from './decode-json.ts';
export { decodeProtobufRequest } from './decode-protobuf.ts';
export type { AttributeValue, HistogramPoint, MetricsBatch, Temporality } from './histogram-point.ts';
export {
  createMetricsHandler,
  DEFAULT_MAX_BODY_BYTES,
  type IngestResult,
  type MetricsHandler,
  type MetricsHandlerOptions,
} from './metrics-handler.ts';
export { SUPPORTED_ENCODINGS } from './read-body.ts';
export type { MetricFilter } from './read-points.ts';
