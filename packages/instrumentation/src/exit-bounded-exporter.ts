import type { ExportResult } from '@opentelemetry/core';
import type {
  AggregationSelector,
  AggregationTemporalitySelector,
  PushMetricExporter,
  ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * The last export of a process that is exiting gets a short deadline of its own.
 *
 * The OTLP exporters retry a refused export until their timeout (`OTEL_EXPORTER_OTLP_TIMEOUT`,
 * 10 s), and their retry timers keep the event loop alive: with the collector down, every short
 * script under `register` would exit about 9 s late. Once `exiting()` is called, exports go to a
 * second exporter made with `exitTimeoutMillis` (or the configured timeout when that is shorter).
 * An export that was already retrying when the process began to exit keeps its own deadline.
 */
abstract class ExitBounded<E extends SpanExporter | PushMetricExporter> {
  readonly #make: (timeoutMillis?: number) => E;
  readonly #exitTimeoutMillis: number;
  readonly #made: E[];
  protected current: E;

  constructor(make: (timeoutMillis?: number) => E, exitTimeoutMillis: number) {
    this.#make = make;
    this.#exitTimeoutMillis = exitTimeoutMillis;
    this.current = make();
    this.#made = [this.current];
  }

  /** From now on, exports use the exit deadline. */
  exiting(): void {
    if (this.#made.length > 1) return;
    this.current = this.#make(this.#exitTimeoutMillis);
    this.#made.push(this.current);
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.#made.map((exporter) => exporter.forceFlush?.()));
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.#made.map((exporter) => exporter.shutdown()));
  }
}

export class ExitBoundedSpanExporter extends ExitBounded<SpanExporter> implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.current.export(spans, done);
  }
}

export class ExitBoundedMetricExporter extends ExitBounded<PushMetricExporter> implements PushMetricExporter {
  // The reader asks these once, at its start: every exporter made here would answer alike.
  readonly selectAggregationTemporality?: AggregationTemporalitySelector;
  readonly selectAggregation?: AggregationSelector;

  constructor(make: (timeoutMillis?: number) => PushMetricExporter, exitTimeoutMillis: number) {
    super(make, exitTimeoutMillis);
    const first = this.current;
    if (first.selectAggregationTemporality)
      this.selectAggregationTemporality = first.selectAggregationTemporality.bind(first);
    if (first.selectAggregation) this.selectAggregation = first.selectAggregation.bind(first);
  }

  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    this.current.export(metrics, done);
  }
}
