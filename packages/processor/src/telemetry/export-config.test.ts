import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MetricsExportConfigError, metricsExportFromEnv, printableUrl } from './export-config.ts';

describe('metricsExportFromEnv', () => {
  it('exports nothing unless an endpoint is named', () => {
    assert.equal(metricsExportFromEnv({}), undefined);
    assert.equal(metricsExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }), undefined);
  });

  it('takes the flag or LANEWATCH_OTLP_ENDPOINT first, then the signal endpoint as is, then the base one', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://metrics:4318/custom/path',
    };
    assert.equal(metricsExportFromEnv(env, 'http://flag:4318')?.url, 'http://flag:4318/v1/metrics');
    assert.equal(metricsExportFromEnv(env)?.url, 'http://metrics:4318/custom/path');
    assert.equal(
      metricsExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })?.url,
      'http://collector:4318/v1/metrics',
    );
    // OTLP spec: appended relative to the base path.
    assert.equal(
      metricsExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://gw.example/otlp/' })?.url,
      'https://gw.example/otlp/v1/metrics',
    );
  });

  it('appends /v1/metrics to the path of a base endpoint and keeps its query for the request', () => {
    const cases: [Record<string, string>, string | undefined, string][] = [
      [{}, 'http://127.0.0.1:14318/base?tenant=a', 'http://127.0.0.1:14318/base/v1/metrics?tenant=a'],
      [{}, 'https://gw.example/otlp/?tenant=a#x', 'https://gw.example/otlp/v1/metrics?tenant=a'],
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318?tenant=b' },
        undefined,
        'http://collector:4318/v1/metrics?tenant=b',
      ],
    ];
    for (const [env, endpoint, url] of cases) assert.equal(metricsExportFromEnv(env, endpoint)?.url, url);
  });

  it('reads protocol, interval and timeout from the OpenTelemetry variables', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    assert.deepEqual(metricsExportFromEnv(base), {
      url: 'http://c:4318/v1/metrics',
      protocol: 'http/protobuf',
      intervalMs: undefined,
      timeoutMs: undefined,
    });
    const set = metricsExportFromEnv({
      ...base,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
      OTEL_METRIC_EXPORT_TIMEOUT: '5000',
    });
    assert.equal(set?.protocol, 'http/json');
    assert.equal(set?.intervalMs, 15_000);
    assert.equal(set?.timeoutMs, 5_000);
  });

  it('is off with OTEL_SDK_DISABLED=true or OTEL_METRICS_EXPORTER=none, whatever the endpoint', () => {
    assert.equal(metricsExportFromEnv({ OTEL_SDK_DISABLED: 'true' }, 'http://flag:4318'), undefined);
    assert.equal(
      metricsExportFromEnv({ OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
      undefined,
    );
  });

  it('says which variable is wrong and what it must be', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    const cases: [Record<string, string>, RegExp][] = [
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'c:4317' },
        /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL/,
      ],
      [
        { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        /^OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/,
      ],
      [
        { ...base, OTEL_METRIC_EXPORT_INTERVAL: '10s' },
        /^OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds/,
      ],
      [{ ...base, OTEL_METRICS_EXPORTER: 'prometheus' }, /^OTEL_METRICS_EXPORTER must be otlp or none/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => metricsExportFromEnv(env),
        (e: unknown) => e instanceof MetricsExportConfigError && message.test(e.message),
        message.source,
      );
    }
  });

  it('names a bad value in its error only when it looks like a setting, never a pasted token', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    const messageOf = (env: Record<string, string>) => {
      try {
        metricsExportFromEnv(env);
      } catch (error) {
        return (error as Error).message;
      }
      return assert.fail('expected an error');
    };
    assert.match(messageOf({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), /got "grpc"$/);
    assert.match(messageOf({ ...base, OTEL_METRIC_EXPORT_INTERVAL: '10s' }), /got "10s"$/);
    for (const env of [
      { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'Bearer sk-CANARY-77' },
      { ...base, OTEL_METRICS_EXPORTER: 'sk-CANARY-77 otlp' },
      { ...base, OTEL_METRIC_EXPORT_TIMEOUT: 'Basic CANARY==' },
      { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'sk-CANARY-Ab12Cd34' },
      { ...base, OTEL_METRIC_EXPORT_INTERVAL: 'canary0123456789abcdef0123456789' },
    ]) {
      const message = messageOf(env);
      // Case-blind: OTEL_METRICS_EXPORTER is lowercased before it is judged.
      assert.ok(!/canary/i.test(message), message);
      assert.match(message, /got \(a value that is not a name\)$/);
    }
  });

  it('prints an endpoint without credentials or query', () => {
    assert.equal(
      printableUrl('https://user:secret@gw.example/v1/metrics?key=k'),
      'https://gw.example/v1/metrics',
    );
  });
});
