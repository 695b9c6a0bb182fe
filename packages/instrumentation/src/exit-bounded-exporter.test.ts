import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type PushMetricExporter,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { ExitBoundedMetricExporter, ExitBoundedSpanExporter } from './exit-bounded-exporter.ts';
import { traceExporterFromEnv } from './start.ts';

/** Exporters that say which one got what, and with which timeout they were made. */
function recorder() {
  const made: Array<{ timeoutMillis: number | undefined; exported: number; shutDown: boolean }> = [];
  const make = (timeoutMillis?: number) => {
    const entry = { timeoutMillis, exported: 0, shutDown: false };
    made.push(entry);
    return {
      export: (_items: unknown, done: (result: ExportResult) => void) => {
        entry.exported += 1;
        done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: async () => {
        entry.shutDown = true;
      },
      forceFlush: async () => {},
      selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
    };
  };
  return { made, make };
}

describe('exports while the process exits', () => {
  it('go to an exporter made with the exit deadline; before that, to one made as configured', async () => {
    const { made, make } = recorder();
    const exporter = new ExitBoundedSpanExporter(make as (t?: number) => SpanExporter, 2000);
    const done = () => {};
    exporter.export([] as ReadableSpan[], done);
    exporter.exiting();
    exporter.exiting(); // once is enough
    exporter.export([] as ReadableSpan[], done);
    assert.deepEqual(
      made.map(({ timeoutMillis, exported }) => ({ timeoutMillis, exported })),
      [
        { timeoutMillis: undefined, exported: 1 },
        { timeoutMillis: 2000, exported: 1 },
      ],
    );
    await exporter.shutdown();
    assert.ok(
      made.every((m) => m.shutDown),
      'both are shut down',
    );
  });

  it('keeps the metric exporter’s temporality and aggregation answers', () => {
    const { made, make } = recorder();
    const exporter = new ExitBoundedMetricExporter(make as (t?: number) => PushMetricExporter, 500);
    assert.equal(exporter.selectAggregationTemporality?.(0 as never), AggregationTemporality.CUMULATIVE);
    assert.equal(exporter.selectAggregation, undefined, 'absent where the exporter has none');
    exporter.exiting();
    exporter.export({} as ResourceMetrics, () => {});
    assert.deepEqual(
      made.map(({ timeoutMillis, exported }) => ({ timeoutMillis, exported })),
      [
        { timeoutMillis: undefined, exported: 0 },
        { timeoutMillis: 500, exported: 1 },
      ],
    );
  });

  it('is used for the one OTLP/HTTP trace exporter the variables ask for, else the NodeSDK decides', () => {
    assert.ok(traceExporterFromEnv({}) instanceof ExitBoundedSpanExporter);
    assert.ok(traceExporterFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' }) instanceof ExitBoundedSpanExporter);
    assert.ok(
      traceExporterFromEnv({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }) instanceof
        ExitBoundedSpanExporter,
    );
    for (const env of [
      { OTEL_TRACES_EXPORTER: 'none' },
      { OTEL_TRACES_EXPORTER: 'console' },
      { OTEL_TRACES_EXPORTER: 'otlp,console' },
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    ]) {
      assert.equal(traceExporterFromEnv(env), undefined, JSON.stringify(env));
    }
  });
});
