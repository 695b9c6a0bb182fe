// What collector-config/README.md promises beyond test/collector-config.test.ts: the defaults of its
// "Ports and environment" table, the pipeline order, every credential word of "What is deleted",
// exemplars, GenAI events keeping what is not content, `job` from service.namespace, the scope labels,
// the target_info join, delta dropped, batching, the token to the processor only, the collector's own
// metrics and log level, and the debug exporter's counts-only output.
// The real collector and a real Prometheus, started through test/stack.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ATTR, MILESTONE_METRIC } from '@lanewatch/instrumentation';
import { eventually } from './e2e/pipeline-stack.ts';
import {
  buildCollector,
  type Collector,
  type CollectorStack,
  collectorConfigPath,
  type OtlpSink,
  type Prometheus,
  startCollector,
  startCollectorStack,
  startOtlpSink,
} from './stack/index.ts';
import {
  type AttributeValue,
  exponentialPoint,
  logsRequest,
  metricsRequest,
  postOtlpJson,
  traceRequest,
} from './stack/otlp-payloads.ts';

const CANARY = 'lw-doc-canary-81c4';

/** Header attributes the README deletes by a word in their name (any case) that the other test does not send. */
const CREDENTIALS: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'http.request.header.api_key',
    'http.request.header.X-API-KEY',
    'http.request.header.x-client-secret',
    'http.request.header.x-password',
    'http.request.header.x-amz-credential',
    'http.response.header.x-session-id',
    'http.response.header.Authorization',
    'http.request.header.X-Auth-Key',
  ].map((key) => [key, `${CANARY} ${key}`]),
);

/** Content in an exemplar's filtered attributes (README: "and exemplar attributes"). */
const EXEMPLAR_CONTENT: Readonly<Record<string, string>> = Object.fromEntries(
  ['gen_ai.prompt', 'gen_ai.output.messages', 'url.full', 'http.request.header.authorization'].map((key) => [
    key,
    `${CANARY} exemplar ${key}`,
  ]),
);

/** Neither content nor credentials: must survive. */
const KEPT: Readonly<Record<string, AttributeValue>> = {
  'http.request.header.accept': 'text/event-stream',
  'http.response.header.content-length': '512',
  'gen_ai.usage.input_tokens': 7,
};
const EXEMPLAR_KEPT = { 'lanewatch.exemplar_note': 'exemplar-kept-7f2e' };

/** An attribute of a GenAI event that is not content: the event keeps it. */
const GENAI_EVENT_KEPT = ['gen_ai.response.id', 'chatcmpl-doc-41'] as const;

const RESOURCE = {
  'service.name': 'doc-app',
  'service.namespace': 'lanewatch-docs',
  'service.instance.id': 'doc-instance-1',
  'deployment.environment.name': 'staging-doc',
};

const ns = (date: number) => BigInt(date) * 1_000_000n;

function laneAttributes(lane: string): Record<string, AttributeValue> {
  return {
    [ATTR.operationName]: 'chat',
    [ATTR.providerName]: 'openai',
    [ATTR.requestModel]: 'gpt-doc',
    [ATTR.lane]: lane,
    [ATTR.outcome]: 'ok',
    [ATTR.statusCode]: 200,
  };
}

/** OTLP's AGGREGATION_TEMPORALITY_DELTA. */
const DELTA = 1;

/** The request with one of its metrics switched to delta temporality. */
function withDelta(
  request: ReturnType<typeof metricsRequest>,
  name: string,
): ReturnType<typeof metricsRequest> {
  return {
    resourceMetrics: request.resourceMetrics.map((rm) => ({
      ...rm,
      scopeMetrics: rm.scopeMetrics.map((sm) => ({
        ...sm,
        metrics: sm.metrics.map((m) =>
          m.name === name
            ? { ...m, exponentialHistogram: { ...m.exponentialHistogram, aggregationTemporality: DELTA } }
            : m,
        ),
      })),
    })),
  };
}

function assertNoCanary(where: string, text: string): void {
  const at = text.indexOf(CANARY);
  assert.equal(at, -1, `${where} carries content: …${text.slice(Math.max(0, at - 80), at + 80)}…`);
}

/** One value of the collector's own Prometheus-format metrics, or undefined. */
async function ownMetric(collector: Collector, name: string, labels: string): Promise<number | undefined> {
  const text = await (await fetch(collector.metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

interface PrintedConfig {
  receivers: { otlp: { protocols: { grpc: { endpoint: string }; http: { endpoint: string } } } };
  extensions: { health_check: { endpoint: string } };
  processors: { batch: { timeout: number; send_batch_size: number } };
  exporters: {
    prometheus_remote_write: { http: { endpoint: string } };
    'otlp_http/processor': { endpoint: string };
  };
  service: {
    pipelines: Record<string, { receivers: string[]; processors: string[]; exporters: string[] }>;
    telemetry: {
      logs: { level: string };
      metrics: { readers: { pull: { exporter: { prometheus: { host: string; port: number } } } }[] };
    };
  };
}

/** The config the built collector resolves from collector.yaml with none of its variables set. */
async function resolvedDefaults(): Promise<PrintedConfig> {
  const bin = await buildCollector();
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !key.startsWith('LANEWATCH_') && key !== 'PROMETHEUS_REMOTE_WRITE_URL',
    ),
  );
  // `print-config` (experimental in v0.161) resolves ${env:…:-default} exactly as a run does.
  const { stdout } = await promisify(execFile)(
    bin,
    ['print-config', '--format=json', `--config=${collectorConfigPath('collector.yaml')}`],
    { env, timeout: 60_000 },
  );
  return JSON.parse(stdout) as PrintedConfig;
}

describe('collector-config: the defaults and the pipeline the README documents', () => {
  test('with no variable set: OTLP on 127.0.0.1:4317 (gRPC) and :4318 (HTTP), health on :13133, own metrics on 127.0.0.1:8888, Prometheus on :9090, the processor on :4320', async () => {
    const config = await resolvedDefaults();
    assert.equal(config.receivers.otlp.protocols.grpc.endpoint, '127.0.0.1:4317');
    assert.equal(config.receivers.otlp.protocols.http.endpoint, '127.0.0.1:4318');
    assert.equal(config.extensions.health_check.endpoint, '127.0.0.1:13133');
    const prometheus = config.service.telemetry.metrics.readers[0]?.pull.exporter.prometheus;
    assert.equal(prometheus?.host, '127.0.0.1');
    assert.equal(prometheus?.port, 8888);
    assert.equal(config.service.telemetry.logs.level, 'info');
    assert.equal(
      config.exporters.prometheus_remote_write.http.endpoint,
      'http://127.0.0.1:9090/api/v1/write',
    );
    assert.equal(config.exporters['otlp_http/processor'].endpoint, 'http://127.0.0.1:4320');
  });

  test('every pipeline runs memory_limiter first, then transform/content, then batch (1 s or 8192 items)', async () => {
    const config = await resolvedDefaults();
    assert.deepEqual(Object.keys(config.service.pipelines).sort(), ['logs', 'metrics', 'traces']);
    for (const [name, pipeline] of Object.entries(config.service.pipelines)) {
      assert.deepEqual(pipeline.receivers, ['otlp'], name);
      assert.deepEqual(pipeline.processors, ['memory_limiter', 'transform/content', 'batch'], name);
    }
    assert.deepEqual(config.service.pipelines.metrics?.exporters, [
      'prometheus_remote_write',
      'otlp_http/processor',
    ]);
    assert.deepEqual(config.service.pipelines.traces?.exporters, ['debug']);
    assert.deepEqual(config.service.pipelines.logs?.exporters, ['debug']);
    assert.equal(config.processors.batch.timeout, 1e9, 'nanoseconds');
    assert.equal(config.processors.batch.send_batch_size, 8192);
  });
});

describe('collector-config: what leaves the collector, as the README documents it', () => {
  const PROCESSOR_TOKEN = 'doc-processor-token-5c1a';
  const BATCH_LANES = Array.from({ length: 40 }, (_, i) => `batch-${String(i).padStart(2, '0')}`);
  let stack: CollectorStack | undefined;
  let sink: OtlpSink | undefined;
  let prometheus: Prometheus | undefined;
  let collector: Collector | undefined;
  let queryTime: Date;
  /** Metric points, spans and log records posted to the collector. */
  const posted = { points: 0, spans: 0, logRecords: 0 };

  before(async () => {
    stack = await startCollectorStack({ tracesAndLogs: true, processorToken: PROCESSOR_TOKEN });
    ({ sink, prometheus, collector } = stack);
    const now = Date.now();
    const start = ns(now - 60_000);
    // A data point whose exemplar carries content in its filtered attributes.
    const withExemplar = {
      ...exponentialPoint({
        values: [0.2, 0.3, 0.4],
        scale: 10,
        attributes: { ...laneAttributes('doc'), ...CREDENTIALS, ...KEPT },
        startNs: start,
        timeNs: ns(now - 20_000),
      }),
      exemplars: [
        {
          timeUnixNano: String(ns(now - 21_000)),
          asDouble: 0.3,
          traceId: '5b8efff798038103d269b633813fc60c',
          spanId: 'eee19b7ec3c1b174',
          filteredAttributes: Object.entries({
            ...EXEMPLAR_CONTENT,
            ...CREDENTIALS,
            ...EXEMPLAR_KEPT,
          }).map(([key, value]) => ({ key, value: { stringValue: value } })),
        },
      ],
    };
    // One request, two metrics: time to first text cumulative, time to headers delta (an app exporting
    // delta). Once the first is in Prometheus, the remote write that would have carried the second is done.
    const request = metricsRequest(RESOURCE, [
      {
        name: MILESTONE_METRIC.first_text,
        unit: 's',
        points: [withExemplar],
      },
      {
        name: MILESTONE_METRIC.headers,
        unit: 's',
        points: [
          exponentialPoint({
            values: [0.1, 0.2],
            scale: 10,
            attributes: laneAttributes('doc-delta'),
            startNs: ns(now - 30_000),
            timeNs: ns(now - 20_000),
          }),
        ],
      },
    ]);
    await postOtlpJson(collector.otlpHttpUrl, '/v1/metrics', withDelta(request, MILESTONE_METRIC.headers));
    posted.points += 2;
    const prom = prometheus;
    queryTime = new Date(now);
    await eventually('the cumulative point in Prometheus', async () => {
      const result = await prom.query(
        'lanewatch_time_to_first_text_seconds{lanewatch_lane="doc"}',
        queryTime,
      );
      return result.length === 1 ? result : undefined;
    });

    await postOtlpJson(
      collector.otlpHttpUrl,
      '/v1/traces',
      traceRequest({
        resource: RESOURCE,
        spanId: 'eee19b7ec3c1b176',
        spanName: 'doc chat',
        spanAttributes: { ...laneAttributes('doc'), ...CREDENTIALS, ...KEPT },
        events: [{ name: 'lanewatch.first_text', attributes: { ...CREDENTIALS, ...KEPT } }],
        startNs: ns(now - 2000),
        endNs: ns(now - 1000),
      }),
    );
    posted.spans += 1;
    await postOtlpJson(
      collector.otlpHttpUrl,
      '/v1/logs',
      logsRequest({
        resource: RESOURCE,
        records: [
          { body: 'doc lane recovered', attributes: { ...CREDENTIALS, ...KEPT } },
          {
            eventName: 'gen_ai.choice',
            body: `${CANARY} choice body`,
            attributes: { ...CREDENTIALS, [GENAI_EVENT_KEPT[0]]: GENAI_EVENT_KEPT[1] },
          },
        ],
        timeNs: ns(now),
      }),
    );
    posted.logRecords += 2;

    // One point per request, all at once: the batch processor's 1 s window gathers them.
    await Promise.all(
      BATCH_LANES.map((lane) =>
        postOtlpJson(
          collector?.otlpHttpUrl ?? '',
          '/v1/metrics',
          metricsRequest(RESOURCE, [
            {
              name: MILESTONE_METRIC.headers,
              unit: 's',
              points: [
                exponentialPoint({
                  values: [0.05],
                  scale: 10,
                  attributes: laneAttributes(lane),
                  startNs: start,
                  timeNs: ns(now - 15_000),
                }),
              ],
            },
          ]),
        ),
      ),
    );
    posted.points += BATCH_LANES.length;
  });

  after(async () => {
    await stack?.stop();
  });

  const bodies = (path: string) =>
    sink?.requests.filter((r) => r.path === path).map((r) => r.body.toString('latin1')) ?? [];

  test('credential headers named by any of the README’s words, in any case, leave no data point, span, span event or log record', async () => {
    assert.ok(sink && prometheus);
    await sink.waitFor('/v1/traces');
    await sink.waitFor('/v1/logs');
    await eventually(
      'the doc lane’s point at the processor',
      async () =>
        bodies('/v1/metrics').some((b) => b.includes(EXEMPLAR_KEPT['lanewatch.exemplar_note'])) || undefined,
    );
    for (const path of ['/v1/metrics', '/v1/traces', '/v1/logs']) {
      const text = bodies(path).join('\n');
      assertNoCanary(path, text);
      for (const key of Object.keys(CREDENTIALS))
        assert.ok(!text.includes(key), `${path}: ${key} left the collector`);
      for (const key of Object.keys(KEPT))
        assert.ok(text.includes(key), `${path}: ${key} was deleted but is not content`);
    }
    const series = await prometheus.series('{__name__=~".+"}');
    assertNoCanary('Prometheus series', JSON.stringify(series));
  });

  test('a GenAI event keeps its name and its attributes that are not content, and loses its body', async () => {
    assert.ok(sink);
    await sink.waitFor('/v1/logs');
    const logs = bodies('/v1/logs').join('\n');
    assert.ok(logs.includes('gen_ai.choice'), 'the event is kept');
    assert.ok(
      logs.includes(GENAI_EVENT_KEPT[0]) && logs.includes(GENAI_EVENT_KEPT[1]),
      'its other attribute is kept',
    );
    assert.ok(!logs.includes('choice body'), 'its body is emptied');
  });

  test('content in an exemplar’s attributes is deleted; the exemplar and its other attributes reach the processor', async () => {
    await eventually(
      'the exemplar at the processor',
      async () =>
        bodies('/v1/metrics').some((b) => b.includes(EXEMPLAR_KEPT['lanewatch.exemplar_note'])) || undefined,
    );
    const text = bodies('/v1/metrics').join('\n');
    assert.ok(text.includes('lanewatch.exemplar_note'), 'the exemplar’s own attribute is kept');
    assert.ok(!text.includes(`${CANARY} exemplar`), 'exemplar content left the collector');
    for (const key of Object.keys(EXEMPLAR_CONTENT))
      assert.ok(!text.includes(key), `exemplar key ${key} left`);
  });

  test('job is service.namespace/service.name, and otel_scope_name and otel_scope_version label the series', async () => {
    assert.ok(prometheus);
    const [labels] = await prometheus.series('lanewatch_time_to_first_text_seconds{lanewatch_lane="doc"}');
    assert.ok(labels, 'the series is in Prometheus');
    assert.equal(labels.job, 'lanewatch-docs/doc-app');
    assert.equal(labels.instance, 'doc-instance-1');
    assert.equal(labels.otel_scope_name, '@lanewatch/instrumentation');
    assert.equal(labels.otel_scope_version, '0.0.0-test');
    assert.ok(!('deployment_environment_name' in labels), 'resource attributes stay off the series');
  });

  test('the README’s target_info join adds a resource attribute to a query', async () => {
    assert.ok(prometheus);
    const result = await prometheus.query(
      'sum by (job, instance) (histogram_count(lanewatch_time_to_first_text_seconds{lanewatch_lane="doc"}))' +
        ' * on (job, instance) group_left (deployment_environment_name) target_info',
      queryTime,
    );
    assert.equal(result.length, 1, JSON.stringify(result));
    assert.equal(result[0]?.metric.deployment_environment_name, 'staging-doc');
    assert.equal(result[0]?.value?.[1], '3');
  });

  test('points exported with delta temporality never reach Prometheus; cumulative ones do', async () => {
    assert.ok(prometheus && sink);
    // The collector took it (the processor gets it); the remote write, done by now (before()), dropped it.
    await eventually(
      'the delta point at the processor',
      async () => bodies('/v1/metrics').some((b) => b.includes('doc-delta')) || undefined,
    );
    const names = await prometheus.metricNames();
    assert.ok(names.includes('lanewatch_time_to_first_text_seconds'));
    const delta = await prometheus.series('{lanewatch_lane="doc-delta"}');
    assert.deepEqual(delta, []);
  });

  test('points sent within a second reach the processor in fewer, larger requests (batch)', async () => {
    const withBatchLanes = await eventually('every batch lane at the processor', async () => {
      const requests = bodies('/v1/metrics').filter((b) => b.includes('batch-'));
      const text = requests.join('\n');
      return BATCH_LANES.every((lane) => text.includes(lane)) ? requests : undefined;
    });
    // Without the batch processor each of the 40 requests is forwarded on its own.
    assert.ok(
      withBatchLanes.length <= BATCH_LANES.length / 2,
      `${BATCH_LANES.length} requests in, ${withBatchLanes.length} out`,
    );
  });

  test('the processor’s bearer token goes to the processor only, not to the logs backend', async () => {
    assert.ok(sink);
    const [metrics] = await sink.waitFor('/v1/metrics');
    assert.equal(metrics?.authorization, `Bearer ${PROCESSOR_TOKEN}`);
    for (const request of await sink.waitFor('/v1/logs')) assert.equal(request.authorization, undefined);
  });

  test('the collector’s own metrics port counts what it received and what it sent', async () => {
    assert.ok(collector);
    const c = collector;
    const accepted = await eventually('own metrics counting every point, span and log record', async () => {
      const counts = {
        points: await ownMetric(c, 'otelcol_receiver_accepted_metric_points', 'transport="http"'),
        spans: await ownMetric(c, 'otelcol_receiver_accepted_spans', 'transport="http"'),
        logRecords: await ownMetric(c, 'otelcol_receiver_accepted_log_records', 'transport="http"'),
      };
      return JSON.stringify(counts) === JSON.stringify(posted) ? counts : undefined;
    }).catch((error: Error) => {
      throw new Error(`${error.message}; posted ${JSON.stringify(posted)}`);
    });
    assert.deepEqual(accepted, posted);
    const sent = await eventually('points sent to the processor', async () => {
      const value = await ownMetric(
        c,
        'otelcol_exporter_sent_metric_points',
        'exporter="otlp_http/processor"',
      );
      return value === posted.points ? value : undefined;
    });
    assert.equal(sent, posted.points);
  });

  test('no content in the collector’s log', () => {
    assert.ok(collector);
    assertNoCanary('collector log', collector.readLog());
    assert.doesNotMatch(collector.readLog(), /\terror\t/, 'the collector logged an error');
  });
});

describe('collector-config: without a traces or logs backend', () => {
  let sink: OtlpSink | undefined;
  let collector: Collector | undefined;

  before(async () => {
    sink = await startOtlpSink();
    collector = await startCollector({
      processorEndpoint: sink.url,
      remoteWriteUrl: `${sink.url}/api/v1/write`,
    });
  });

  after(async () => {
    await collector?.stop();
    await sink?.close();
  });

  test('traces and logs go to the debug exporter, whose log lines carry counts and never a name, an attribute or a body', async () => {
    assert.ok(collector);
    const now = Date.now();
    // Values that are not content (the transform keeps them): only the exporter's verbosity hides them.
    await postOtlpJson(
      collector.otlpHttpUrl,
      '/v1/traces',
      traceRequest({
        resource: { 'service.name': `${CANARY}-service` },
        spanId: 'eee19b7ec3c1b177',
        spanName: `${CANARY} span name`,
        spanAttributes: { [ATTR.lane]: `${CANARY} lane` },
        events: [{ name: `${CANARY} event`, attributes: { note: `${CANARY} event attribute` } }],
        startNs: ns(now - 2000),
        endNs: ns(now - 1000),
      }),
    );
    await postOtlpJson(
      collector.otlpHttpUrl,
      '/v1/logs',
      logsRequest({
        resource: { 'service.name': `${CANARY}-service` },
        records: [{ body: `${CANARY} log body`, attributes: { note: `${CANARY} log attribute` } }],
        timeNs: ns(now),
      }),
    );
    const c = collector;
    await eventually('the debug exporter’s lines for the span and the log record', async () =>
      /"spans": 1\b/.test(c.readLog()) && /"log records": 1\b/.test(c.readLog()) ? true : undefined,
    );
    assertNoCanary('collector log', collector.readLog());
  });
});

describe('collector-config: LANEWATCH_COLLECTOR_LOG_LEVEL', () => {
  let sink: OtlpSink | undefined;
  let collector: Collector | undefined;

  before(async () => {
    sink = await startOtlpSink();
    collector = await startCollector({
      processorEndpoint: sink.url,
      remoteWriteUrl: `${sink.url}/api/v1/write`,
      env: { LANEWATCH_COLLECTOR_LOG_LEVEL: 'warn' },
    });
  });

  after(async () => {
    await collector?.stop();
    await sink?.close();
  });

  test('at warn, the collector runs and its log has no info lines', async () => {
    assert.ok(collector);
    const now = Date.now();
    await postOtlpJson(
      collector.otlpHttpUrl,
      '/v1/traces',
      traceRequest({
        resource: { 'service.name': 'doc-app' },
        spanId: 'eee19b7ec3c1b178',
        spanName: 'doc chat',
        spanAttributes: {},
        events: [],
        startNs: ns(now - 2000),
        endNs: ns(now - 1000),
      }),
    );
    const c = collector;
    // The debug exporter has handled the span (its count line would be at info).
    await eventually('the span through the debug exporter', async () =>
      (await ownMetric(c, 'otelcol_exporter_sent_spans', 'exporter="debug"')) === 1 ? true : undefined,
    );
    assert.doesNotMatch(collector.readLog(), /\tinfo\t/);
  });
});
