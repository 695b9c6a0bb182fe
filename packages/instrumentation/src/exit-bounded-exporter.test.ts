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
import {
  exitTimeoutFromEnv,
  inferRetriesFromEnv,
  metricReadersFromEnv,
  otlpProtocolFromEnv,
  resourceDetectorsFromEnv,
  spansFromEnv,
  traceExporterFromEnv,
} from './start.ts';

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

  it('is used for the one OTLP trace exporter the variables ask for, over any of the three protocols; else the NodeSDK decides', () => {
    assert.ok(traceExporterFromEnv({}) instanceof ExitBoundedSpanExporter);
    assert.ok(traceExporterFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' }) instanceof ExitBoundedSpanExporter);
    for (const protocol of ['http/json', 'http/protobuf', 'grpc']) {
      assert.ok(
        traceExporterFromEnv({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol }) instanceof
          ExitBoundedSpanExporter,
        protocol,
      );
    }
    for (const env of [
      { OTEL_TRACES_EXPORTER: 'none' },
      { OTEL_TRACES_EXPORTER: 'console' },
      { OTEL_TRACES_EXPORTER: 'otlp,console' },
    ]) {
      assert.equal(traceExporterFromEnv(env), undefined, JSON.stringify(env));
    }
  });
});

describe('OTLP settings from the environment', () => {
  it('takes the signal’s own protocol variable first, then the general one, then http/protobuf', () => {
    const none = () => assert.fail('no warning expected');
    assert.equal(otlpProtocolFromEnv({}, 'METRICS', none), 'http/protobuf');
    assert.equal(otlpProtocolFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: ' grpc ' }, 'METRICS', none), 'grpc');
    assert.equal(
      otlpProtocolFromEnv(
        { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' },
        'TRACES',
        none,
      ),
      'http/json',
    );
    assert.equal(
      otlpProtocolFromEnv(
        { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
        'METRICS',
        none,
      ),
      'http/json',
    );
  });

  it('LANEWATCH_EXIT_TIMEOUT: milliseconds, never more than the OTLP timeout; a bad value is named, with what to write, and 2000 used', () => {
    const none = () => assert.fail('no warning expected');
    assert.equal(exitTimeoutFromEnv({}, 'METRICS', none), 2000);
    assert.equal(exitTimeoutFromEnv({ LANEWATCH_EXIT_TIMEOUT: ' ' }, 'METRICS', none), 2000);
    assert.equal(exitTimeoutFromEnv({ LANEWATCH_EXIT_TIMEOUT: ' 5000 ' }, 'TRACES', none), 5000);
    assert.equal(
      exitTimeoutFromEnv(
        { LANEWATCH_EXIT_TIMEOUT: '5000', OTEL_EXPORTER_OTLP_TIMEOUT: '3000' },
        'METRICS',
        none,
      ),
      3000,
    );
    // An OTLP timeout under 1 ms is not one: it does not cut the deadline to 0.
    assert.equal(exitTimeoutFromEnv({ OTEL_EXPORTER_OTLP_TIMEOUT: '0.5' }, 'METRICS', none), 2000);
    assert.equal(
      exitTimeoutFromEnv(
        {
          LANEWATCH_EXIT_TIMEOUT: '5000',
          OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
          OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '4000',
        },
        'TRACES',
        none,
      ),
      4000,
    );
    const said: string[] = [];
    // Only whole milliseconds: `2.5` (seconds meant?) and `0x10` are not rounded into 2 and 16 ms.
    for (const value of ['2s', '0', '0.5', '-5', 'Bearer-Xy7Qk', '2.5', '0x10', '1e3', '2147483648']) {
      assert.equal(
        exitTimeoutFromEnv({ LANEWATCH_EXIT_TIMEOUT: value }, 'METRICS', (m) => said.push(m)),
        2000,
        value,
      );
    }
    assert.deepEqual(said, [
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="2s" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="0" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="0.5" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="-5" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT=(a value that is not a name) is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="2.5" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="0x10" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="1e3" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
      'lanewatch: LANEWATCH_EXIT_TIMEOUT="2147483648" is not a whole number of milliseconds from 1 to 600000 (e.g. 2000); exports made while the process exits get 2000 ms until it is fixed',
    ]);
  });

  it('LANEWATCH_INFER_RETRIES: false turns retry inference off; unset, empty or true keeps it; anything else is named', () => {
    const none = () => assert.fail('no warning expected');
    for (const value of [undefined, '', 'true', 'True ']) {
      assert.equal(inferRetriesFromEnv({ LANEWATCH_INFER_RETRIES: value }, none), true, String(value));
    }
    assert.equal(inferRetriesFromEnv({ LANEWATCH_INFER_RETRIES: 'FALSE' }, none), false);
    const said: string[] = [];
    assert.equal(
      inferRetriesFromEnv({ LANEWATCH_INFER_RETRIES: 'no' }, (m) => said.push(m)),
      true,
    );
    assert.deepEqual(said, [
      'lanewatch: LANEWATCH_INFER_RETRIES="no" is not true or false; repeated requests are still taken for retries until it is fixed',
    ]);
  });

  it('LANEWATCH_SPANS: false turns lanewatch’s spans off; unset, empty or true keeps them; a secret-looking value is not shown', () => {
    const none = () => assert.fail('no warning expected');
    for (const value of [undefined, '', ' ', 'true', 'TRUE']) {
      assert.equal(spansFromEnv({ LANEWATCH_SPANS: value }, none), true, String(value));
    }
    assert.equal(spansFromEnv({ LANEWATCH_SPANS: ' False' }, none), false);
    const said: string[] = [];
    assert.equal(
      spansFromEnv({ LANEWATCH_SPANS: 'sk-Secret-0123456789abcdef' }, (m) => said.push(m)),
      true,
    );
    assert.equal(
      spansFromEnv({ LANEWATCH_SPANS: 'Xy7Qk' }, (m) => said.push(m)),
      true,
    );
    const unnamed =
      "lanewatch: LANEWATCH_SPANS=(a value that is not a name) is not true or false; lanewatch's spans stay on until it is fixed";
    assert.deepEqual(said, [unnamed, unnamed]);
  });

  it('an empty signal protocol is unset: the general one decides, as the specification says', () => {
    const none = () => assert.fail('no warning expected');
    for (const empty of ['', '  ']) {
      assert.equal(
        otlpProtocolFromEnv(
          { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: empty, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
          'METRICS',
          none,
        ),
        'http/json',
      );
    }
    assert.equal(
      otlpProtocolFromEnv(
        { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
        'TRACES',
        none,
      ),
      'grpc',
    );
  });

  it('names a protocol it does not know, and what to write instead, and goes on over http/protobuf', () => {
    const said: string[] = [];
    const protocol = otlpProtocolFromEnv(
      { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http' },
      'METRICS',
      (message) => said.push(message),
    );
    assert.equal(protocol, 'http/protobuf');
    assert.deepEqual(said, [
      'lanewatch: OTEL_EXPORTER_OTLP_METRICS_PROTOCOL="http" is not one of http/protobuf, http/json, grpc; metrics are exported over http/protobuf until it is fixed',
    ]);
    // A value that does not look like a setting (a token pasted into the wrong variable) is not shown.
    for (const value of [
      `x${'y'.repeat(500)}`,
      'Bearer sk-CANARY-1234',
      'grpc\nhttp',
      'sk-CANARY-Ab12Cd34', // a token with no space, short: mixed case
      'canary0123456789abcdef0123456789', // lowercase hex, longer than any setting
    ]) {
      const told: string[] = [];
      otlpProtocolFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: value }, 'TRACES', (m) => told.push(m));
      assert.equal(told.length, 1);
      assert.ok(!/yyy|canary/i.test(told[0] ?? ''), told[0]);
      assert.match(told[0] ?? '', /OTEL_EXPORTER_OTLP_PROTOCOL=\(a value that is not a name\) is not one of/);
    }
  });

  it('names a span exporter the Node SDK does not build, which it would leave out in silence', () => {
    const said: string[] = [];
    assert.equal(
      traceExporterFromEnv({ OTEL_TRACES_EXPORTER: 'jaeger,otlp' }, [], (m) => said.push(m)),
      undefined,
    );
    assert.deepEqual(said, [
      'lanewatch: OTEL_TRACES_EXPORTER "jaeger" is not one the Node SDK builds (otlp, zipkin, console, none); left out',
    ]);
    const none: string[] = [];
    for (const kinds of ['otlp', 'zipkin', 'console', 'none', 'otlp,console', ''])
      traceExporterFromEnv({ OTEL_TRACES_EXPORTER: kinds }, [], (m) => none.push(m));
    assert.deepEqual(none, []);
  });

  it('leaves out a metrics exporter it does not know, saying so, and keeps the others', () => {
    const said: string[] = [];
    const readers = metricReadersFromEnv({ OTEL_METRICS_EXPORTER: 'prometheus, otlp' }, [], (m) =>
      said.push(m),
    );
    assert.equal(readers.length, 1, 'the otlp reader');
    assert.equal(said.length, 1);
    assert.match(said[0] ?? '', /OTEL_METRICS_EXPORTER "prometheus" is not one lanewatch exports to/);
    assert.match(said[0] ?? '', /send them over otlp/);
    assert.equal(metricReadersFromEnv({ OTEL_METRICS_EXPORTER: 'otlp,console' }).length, 2);
    assert.equal(metricReadersFromEnv({ OTEL_METRICS_EXPORTER: 'none,otlp' }).length, 0);
  });

  it('OTEL_NODE_RESOURCE_DETECTORS chooses as the Node SDK does, and the process detector never gives the command line', async () => {
    assert.equal(resourceDetectorsFromEnv({}).length, 5);
    assert.equal(resourceDetectorsFromEnv({ OTEL_NODE_RESOURCE_DETECTORS: 'all' }).length, 5);
    assert.deepEqual(resourceDetectorsFromEnv({ OTEL_NODE_RESOURCE_DETECTORS: 'none' }), []);
    assert.equal(resourceDetectorsFromEnv({ OTEL_NODE_RESOURCE_DETECTORS: 'env, host, nonsense' }).length, 2);
    const [process] = resourceDetectorsFromEnv({ OTEL_NODE_RESOURCE_DETECTORS: 'process' });
    const attributes = process?.detect().attributes ?? {};
    assert.equal(attributes['process.pid'], globalThis.process.pid);
    assert.ok(!('process.command_args' in attributes));
  });

  it('an empty OTEL_METRICS_EXPORTER is unset: the histograms still go over otlp', () => {
    const none = () => assert.fail('no warning expected');
    for (const empty of ['', ' ', ' , ']) {
      const readers = metricReadersFromEnv({ OTEL_METRICS_EXPORTER: empty }, [], none);
      assert.equal(readers.length, 1, JSON.stringify(empty));
    }
  });
});
