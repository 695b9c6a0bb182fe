import { hostname } from 'node:os';
import type { Attributes } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import {
  defaultResource,
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { PROCESSOR_SERVICE_NAME } from './instrument-names.ts';

/** The OTLP/HTTP encodings (OTLP spec); `http/protobuf` is the spec's default. */
export const OTLP_HTTP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpHttpProtocol = (typeof OTLP_HTTP_PROTOCOLS)[number];

/** Where and how often the processor exports its own metrics. */
export interface MetricsExportOptions {
  /** The full OTLP/HTTP metrics URL, e.g. `http://127.0.0.1:4318/v1/metrics`. */
  readonly url: string;
  /** Default `http/protobuf`. */
  readonly protocol?: OtlpHttpProtocol | undefined;
  /** Milliseconds between exports; the processor's default is its evaluation interval. */
  readonly intervalMs?: number | undefined;
  /** Milliseconds an export may take (at most the interval; default 30 s or the interval). */
  readonly timeoutMs?: number | undefined;
  /**
   * Resource attributes over the defaults (`service.name=lanewatch-processor`, `service.version`,
   * `service.instance.id=<host>:<port>`) and over `OTEL_RESOURCE_ATTRIBUTES` / `OTEL_SERVICE_NAME`.
   */
  readonly resourceAttributes?: Attributes | undefined;
}

export interface MetricsExport {
  readonly provider: MeterProvider;
  /** Exports what the instruments hold now and stops; never rejects. */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * Tells `onError` about every failed export: the SDK otherwise hands them to the global error handler,
 * which a library must not take over.
 */
function reportingFailures(
  exporter: PushMetricExporter,
  onError: (error: unknown) => void,
): PushMetricExporter {
  return {
    export(metrics, done) {
      exporter.export(metrics, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          try {
            onError(result.error ?? new Error('export failed'));
          } catch {
            // The hook's failure is not the exporter's.
          }
        }
        done(result);
      });
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    ...(exporter.selectAggregationTemporality
      ? { selectAggregationTemporality: exporter.selectAggregationTemporality.bind(exporter) }
      : {}),
    ...(exporter.selectAggregation ? { selectAggregation: exporter.selectAggregation.bind(exporter) } : {}),
  };
}

/**
 * A MeterProvider of the processor's own, exporting over OTLP/HTTP every `intervalMs`. Never the global
 * one: the processor may run inside a host service that has its own SDK. Headers, compression and
 * temporality follow the exporter's `OTEL_EXPORTER_OTLP_*` variables; temporality stays cumulative
 * unless they say otherwise (the collector's Prometheus remote write drops delta points).
 */
export function startMetricsExport(
  options: MetricsExportOptions & { readonly intervalMs: number; readonly instance: string },
  onError: (error: unknown) => void,
  version: string,
): MetricsExport {
  const intervalMs = options.intervalMs;
  const timeoutMs = Math.min(options.timeoutMs ?? 30_000, intervalMs);
  // The exporter's own timeout bounds its retries too: an unreachable endpoint costs one export
  // timeout per interval, and at most that at shutdown.
  const config = { url: options.url, timeoutMillis: timeoutMs };
  const exporter =
    (options.protocol ?? 'http/protobuf') === 'http/json'
      ? new JsonMetricExporter(config)
      : new ProtobufMetricExporter(config);
  const reader = new PeriodicExportingMetricReader({
    exporter: reportingFailures(exporter, onError),
    exportIntervalMillis: intervalMs,
    exportTimeoutMillis: timeoutMs,
  });
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        'service.name': PROCESSOR_SERVICE_NAME,
        'service.version': version,
        'service.instance.id': options.instance,
      }),
    )
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }))
    .merge(resourceFromAttributes(options.resourceAttributes ?? {}));
  const provider = new MeterProvider({ resource, readers: [reader] });
  return {
    provider,
    async shutdown(timeoutMs = 5_000) {
      await provider.shutdown({ timeoutMillis: timeoutMs }).catch((error: unknown) => onError(error));
    },
  };
}

/** `service.instance.id` default: stable across restarts, distinct between replicas. */
export function defaultInstance(port: number): string {
  return `${hostname()}:${port}`;
}
