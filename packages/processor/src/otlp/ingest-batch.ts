import { MAX_ERROR_MESSAGES, type MetricsBatch } from './histogram-point.ts';
import type { MetricsHandlerOptions } from './metrics-handler.ts';

/** What an export request's answer says: points rejected, and why (empty when none were). */
export interface ExportOutcome {
  readonly rejected: number;
  readonly errorMessage: string;
}

/**
 * A decoded request's points into the consumer (the lane windows), and the partial success to
 * answer with — the one step OTLP/HTTP and OTLP/gRPC share after decoding, so both take and refuse
 * the same points and say the same about them.
 */
export function ingestBatch(
  batch: MetricsBatch,
  options: Pick<MetricsHandlerOptions, 'ingest' | 'onPoints'>,
): ExportOutcome {
  const taken = batch.points.length > 0 ? options.ingest(batch) : { rejected: 0, errors: [] };
  options.onPoints?.(batch.points.length - taken.rejected, batch.rejected + taken.rejected);
  const errors = [...batch.errors, ...taken.errors].slice(0, MAX_ERROR_MESSAGES);
  return { rejected: batch.rejected + taken.rejected, errorMessage: errors.join('; ') };
}
