import { createRequire } from 'node:module';
import { createNoopMeter, type Meter } from '@opentelemetry/api';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { type IngestCounters, ingestCounters } from './ingest-counters.ts';
import { PROCESSOR_METER } from './instrument-names.ts';
import { observeLaneHealth } from './lane-gauges.ts';
import { type MetricsExportOptions, startMetricsExport } from './metrics-export.ts';

// The same relative path from src/telemetry/ and dist/telemetry/.
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export interface ProcessorTelemetryOptions {
  /** Where to export; `undefined`: nothing is exported and every instrument is a no-op. */
  readonly export:
    | (MetricsExportOptions & { readonly intervalMs: number; readonly instance: string })
    | undefined;
  /** The latest unexpired record of every lane, read at each collection. */
  readonly records: () => Iterable<LaneHealth>;
  /** Told about failed exports (never with the data). */
  readonly onError?: (error: unknown) => void;
}

/** The processor's own metrics: lane gauges, ingest counters, and a meter for more (admission). */
export interface ProcessorTelemetry {
  /** The processor's meter: a no-op one when nothing is exported. */
  readonly meter: Meter;
  readonly ingest: IngestCounters;
  /** Exports the last values and stops; never rejects. */
  shutdown(): Promise<void>;
}

export function createProcessorTelemetry(options: ProcessorTelemetryOptions): ProcessorTelemetry {
  if (options.export === undefined) {
    const meter = createNoopMeter();
    return { meter, ingest: ingestCounters(meter), shutdown: async () => undefined };
  }
  const onError = options.onError ?? (() => undefined);
  const exporting = startMetricsExport(options.export, onError, version);
  const meter = exporting.provider.getMeter(PROCESSOR_METER, version);
  observeLaneHealth(meter, () => {
    try {
      return [...options.records()];
    } catch (error) {
      onError(error);
      return [];
    }
  });
  return { meter, ingest: ingestCounters(meter), shutdown: () => exporting.shutdown() };
}
