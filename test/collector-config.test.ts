// collector-config/ against the real thing: the collector built from the repo's manifest validates
// every config, then runs the real pipeline into a real Prometheus (Debian's 2.42, native histograms)
// and into OTLP sinks standing in for the processor and the traces/logs backends.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ATTR, METRIC, MILESTONE_METRIC } from '@lanewatch/instrumentation';
import {
  buildCollector,
  type Collector,
  type CollectorStack,
  collectorConfigPath,
  type OtlpSink,
  type Prometheus,
  stackLogDir,
  startCollector,
  startCollectorStack,
  startOtlpSink,
  validateCollectorConfig,
} from './stack/index.ts';
import {
  type AttributeValue,
  exponentialPoint,
  logsRequest,
  metricsRequest,
  postOtlpJson,
  traceRequest,
} from './stack/otlp-payloads.ts';

const CANARY = 'lw-canary-5d1e';
const PROCESSOR_TOKEN = 'processor-token-3b9a';

/** What must never leave the collector; each value names its key, so a leak says which one. */
const CONTENT: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'gen_ai.prompt',
    'gen_ai.prompt.0.content',
    'gen_ai.completion',
    'gen_ai.completion.0.content',
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    'gen_ai.system_instructions',
    'gen_ai.tool.call.arguments',
    'gen_ai.tool.call.result',
    'http.request.header.authorization',
    'http.request.header.Proxy-Authorization',
    'http.request.header.x-api-key',
    'http.request.header.api-key',
    'http.request.header.x-goog-api-key',
    'http.request.header.cookie',
    'http.response.header.set-cookie',
    'http.request.header.x-auth-token',
    'url.query',
    'url.full',
    'http.url',
    'http.target',
  ].map((key) => [key, `${CANARY} ${key}`]),
);

/** Look like content or credentials by name, but are neither: they must survive. */
const KEPT: Readonly<Record<string, AttributeValue>> = {
  'url.path': '/v1/chat/completions',
  'http.request.method': 'POST',
  'http.request.header.content-type': 'application/json',
  'http.request.header.x-stainless-retry-count': '0',
  'gen_ai.usage.output_tokens': 42,
};

const RESOURCE = {
  'service.name': 'collector-config-test',
  'service.instance.id': 'instance-1',
  'telemetry.sdk.language': 'nodejs',
};

/**
 * What else may carry content or a key: the same attributes on the resource and the instrumentation
 * scope (target_info and otel_scope_* labels in Prometheus), and the command line the Node SDK's
 * process detector puts on the resource (`node app.js --api-key …`).
 */
const COMMAND_LINE = {
  'process.command_args': ['node', 'app.js', `--api-key=${CANARY}`],
  'process.command_line': `node app.js --api-key=${CANARY}`,
};
const RESOURCE_SENT = { ...RESOURCE, ...CONTENT, ...COMMAND_LINE };
const SCOPE_SENT = { ...CONTENT };

function laneAttributes(lane: string): Record<string, AttributeValue> {
  return {
    [ATTR.operationName]: 'chat',
    [ATTR.providerName]: 'openai',
    [ATTR.requestModel]: 'gpt-test',
    [ATTR.serverAddress]: '127.0.0.1',
    [ATTR.lane]: lane,
    [ATTR.outcome]: 'ok',
    [ATTR.sizeClass]: 's',
    [ATTR.attempt]: '1',
    [ATTR.statusCode]: 200,
  };
}

/** Two lanes whose p95 the test knows: 90 fast samples and 10 slow ones each. */
const LANES = {
  fast: { values: [...Array<number>(90).fill(0.1), ...Array<number>(10).fill(2)], p95: 2 },
  slow: { values: [...Array<number>(90).fill(0.5), ...Array<number>(10).fill(8)], p95: 8 },
} as const;

/** Every lanewatch histogram with the unit the instrumentation gives it, and its Prometheus name. */
const SERIES: readonly { otel: string; unit: string; prometheus: string }[] = [
  { otel: MILESTONE_METRIC.headers, unit: 's', prometheus: 'lanewatch_time_to_headers_seconds' },
  {
    otel: MILESTONE_METRIC.first_chunk,
    unit: 's',
    prometheus: 'gen_ai_client_operation_time_to_first_chunk_seconds',
  },
  { otel: MILESTONE_METRIC.first_output, unit: 's', prometheus: 'lanewatch_time_to_first_output_seconds' },
  { otel: MILESTONE_METRIC.first_text, unit: 's', prometheus: 'lanewatch_time_to_first_text_seconds' },
  { otel: MILESTONE_METRIC.end, unit: 's', prometheus: 'gen_ai_client_operation_duration_seconds' },
  { otel: METRIC.tokenUsage, unit: '{token}', prometheus: 'gen_ai_client_token_usage' },
  // The unit's "/s" becomes "_per_second" even though the name already says it (the translator looks
  // for the suffix as one name token; README: series names).
  {
    otel: METRIC.outputTokensPerSecond,
    unit: '{token}/s',
    prometheus: 'lanewatch_output_tokens_per_second_per_second',
  },
];

const ns = (date: number) => BigInt(date) * 1_000_000n;

/** Cumulative points for every metric and lane, `repeat` times the lane's values (scale 10 > 8). */
function histogramBatch(startNs: bigint, timeNs: bigint, repeat: number) {
  return metricsRequest(
    RESOURCE_SENT,
    SERIES.map(({ otel, unit }) => ({
      name: otel,
      unit,
      points: Object.entries(LANES).map(([lane, { values }]) =>
        exponentialPoint({
          values: Array.from({ length: repeat }, () => values).flat(),
          scale: 10,
          attributes: { ...laneAttributes(lane), ...CONTENT, ...KEPT },
          startNs,
          timeNs,
        }),
      ),
    })),
    SCOPE_SENT,
  );
}

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const result = await probe();
    if (result !== undefined) return result;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function assertNoCanary(where: string, text: string): void {
  const at = text.indexOf(CANARY);
  assert.equal(at, -1, `${where} carries content: …${text.slice(Math.max(0, at - 80), at + 80)}…`);
}

describe('collector-config: every config validates with the built collector', () => {
  before(async () => {
    await buildCollector();
  });

  const cases: readonly [string, readonly string[], Record<string, string>][] = [
    ['collector.yaml (defaults)', [collectorConfigPath('collector.yaml')], {}],
    [
      'collector.yaml + traces.yaml + logs.yaml',
      [
        collectorConfigPath('collector.yaml'),
        collectorConfigPath('traces.yaml'),
        collectorConfigPath('logs.yaml'),
      ],
      {
        LANEWATCH_TRACES_ENDPOINT: 'http://127.0.0.1:4328',
        LANEWATCH_LOGS_ENDPOINT: 'http://127.0.0.1:4338',
      },
    ],
    [
      'collector.yaml + processor-token.yaml',
      [collectorConfigPath('collector.yaml'), collectorConfigPath('processor-token.yaml')],
      { LANEWATCH_TOKEN: 'token' },
    ],
    [
      'collector.yaml + scale-out.yaml',
      [collectorConfigPath('collector.yaml'), collectorConfigPath('scale-out.yaml')],
      { LANEWATCH_PROCESSOR_REPLICAS: '[127.0.0.1:14317, 127.0.0.1:24317]' },
    ],
    [
      'collector.yaml + scale-out.yaml + scale-out-token.yaml',
      [
        collectorConfigPath('collector.yaml'),
        collectorConfigPath('scale-out.yaml'),
        collectorConfigPath('scale-out-token.yaml'),
      ],
      { LANEWATCH_PROCESSOR_REPLICAS: '[127.0.0.1:14317, 127.0.0.1:24317]', LANEWATCH_TOKEN: 'token' },
    ],
  ];
  for (const [name, configs, env] of cases) {
    test(name, async () => {
      const result = await validateCollectorConfig(configs, env);
      assert.ok(result.ok, `otelcol validate failed:\n${result.output}`);
    });
  }

  test('validation is real: a component the build lacks is refused', async () => {
    const broken = join(stackLogDir(), 'broken.yaml');
    writeFileSync(
      broken,
      'exporters:\n  kafka: {}\nservice:\n  pipelines:\n    metrics:\n      exporters: [kafka]\n',
    );
    const result = await validateCollectorConfig([collectorConfigPath('collector.yaml'), broken]);
    assert.equal(result.ok, false);
    assert.match(result.output, /kafka/);
  });
});

describe('collector-config: the pipeline into Prometheus and OTLP receivers', () => {
  let stack: CollectorStack | undefined;
  let sink: OtlpSink | undefined;
  let prometheus: Prometheus | undefined;
  let collector: Collector | undefined;
  let queryTime: Date;

  before(async () => {
    stack = await startCollectorStack({ tracesAndLogs: true, processorToken: PROCESSOR_TOKEN });
    ({ sink, prometheus, collector } = stack);
    const { otlpHttpUrl } = collector;
    const now = Date.now();
    const start = ns(now - 60_000);
    // Two cumulative points 20 s apart, so rate() over [1m] has an increase to work on. The second
    // goes only once the first is stored: Prometheus refuses out-of-order native-histogram samples.
    await postOtlpJson(otlpHttpUrl, '/v1/metrics', histogramBatch(start, ns(now - 30_000), 1));
    const prom = prometheus;
    await eventually('first histogram point in Prometheus', async () => {
      const result = await prom.query('lanewatch_time_to_first_text_seconds', new Date(now - 30_000));
      return result.length === 2 ? result : undefined;
    });
    await postOtlpJson(otlpHttpUrl, '/v1/metrics', histogramBatch(start, ns(now - 10_000), 2));
    queryTime = new Date(now);
    await eventually('second histogram point in Prometheus', async () => {
      const result = await prom.query('lanewatch_time_to_first_text_seconds', queryTime);
      return result.length === 2 && result.every((s) => s.histogram?.[1].count === '200')
        ? result
        : undefined;
    });

    // One span with events and one without: deletion must not depend on a span having events.
    const spanAttributes = { ...laneAttributes('fast'), ...CONTENT, ...KEPT, 'lanewatch.first_text_ms': 612 };
    await postOtlpJson(
      otlpHttpUrl,
      '/v1/traces',
      traceRequest({
        resource: RESOURCE_SENT,
        scopeAttributes: SCOPE_SENT,
        spanId: 'eee19b7ec3c1b174',
        spanName: 'chat with events',
        spanAttributes,
        events: [
          { name: 'lanewatch.first_text', attributes: { ...CONTENT, 'lanewatch.output.kind': 'text' } },
          { name: 'gen_ai.content.prompt', attributes: { ...CONTENT } },
        ],
        startNs: ns(now - 2000),
        endNs: ns(now - 1000),
      }),
    );
    await postOtlpJson(
      otlpHttpUrl,
      '/v1/traces',
      traceRequest({
        resource: RESOURCE_SENT,
        scopeAttributes: SCOPE_SENT,
        spanId: 'eee19b7ec3c1b175',
        spanName: 'chat without events',
        spanAttributes,
        events: [],
        startNs: ns(now - 2000),
        endNs: ns(now - 1000),
      }),
    );
    await postOtlpJson(
      otlpHttpUrl,
      '/v1/logs',
      logsRequest({
        resource: RESOURCE_SENT,
        scopeAttributes: SCOPE_SENT,
        records: [
          { eventName: 'gen_ai.user.message', body: `${CANARY} event body`, attributes: { ...CONTENT } },
          { body: `${CANARY} legacy event body`, attributes: { 'event.name': 'gen_ai.choice' } },
          { body: 'lane fast recovered', attributes: { ...CONTENT, ...KEPT } },
        ],
        timeNs: ns(now),
      }),
    );
  });

  after(async () => {
    await stack?.stop();
  });

  test('the health check answers', async () => {
    assert.ok(collector);
    const response = await fetch(collector.healthUrl);
    assert.equal(response.status, 200);
    assert.match(await response.text(), /Server available/);
  });

  test('metrics reach the processor as OTLP/HTTP protobuf with its bearer token; traces go elsewhere', async () => {
    assert.ok(sink);
    const [metrics] = await sink.waitFor('/v1/metrics');
    assert.equal(metrics?.contentType, 'application/x-protobuf');
    assert.equal(metrics?.authorization, `Bearer ${PROCESSOR_TOKEN}`);
    const [traces] = await sink.waitFor('/v1/traces');
    assert.equal(traces?.authorization, undefined, 'the processor token only goes to the processor');
  });

  test('an exponential histogram arrives as a native histogram: p95 per lane from rate() over [1m]', async () => {
    assert.ok(prometheus);
    const names = await prometheus.metricNames();
    assert.ok(names.includes('lanewatch_time_to_first_text_seconds'), `names: ${names.join(', ')}`);
    assert.ok(
      !names.some((name) => name.endsWith('_bucket')),
      `classic buckets arrived: ${names.join(', ')}`,
    );

    const [sample] = await prometheus.query(
      'lanewatch_time_to_first_text_seconds{lanewatch_lane="fast"}',
      queryTime,
    );
    assert.ok(sample?.histogram, `a native histogram sample, got ${JSON.stringify(sample)}`);
    assert.equal(sample.histogram[1].count, '200');

    const prom = prometheus;
    const p95 = await eventually('p95 for both lanes', async () => {
      const result = await prom.query(
        'histogram_quantile(0.95, sum by (lanewatch_lane) (rate(lanewatch_time_to_first_text_seconds[1m])))',
        queryTime,
      );
      return result.length === 2 ? result : undefined;
    });
    for (const [lane, { p95: expected }] of Object.entries(LANES)) {
      const value = Number(p95.find((s) => s.metric.lanewatch_lane === lane)?.value?.[1]);
      // Scale 8 after the exporter's reduction: buckets are 0.27 % wide.
      assert.ok(
        Math.abs(value - expected) / expected < 0.01,
        `${lane}: p95 ${value}, expected ≈ ${expected}`,
      );
    }
  });

  test('series names and labels as the dashboards see them', async (t) => {
    assert.ok(prometheus);
    const names = await prometheus.metricNames();
    for (const { otel, prometheus: expected } of SERIES) {
      assert.ok(
        names.includes(expected),
        `${otel} → expected ${expected}; Prometheus has: ${names.join(', ')}`,
      );
    }
    const [labels] = await prometheus.series('lanewatch_time_to_first_text_seconds{lanewatch_lane="fast"}');
    assert.ok(labels);
    t.diagnostic(`labels: ${JSON.stringify(labels)}`);
    for (const label of [
      'lanewatch_lane',
      'lanewatch_outcome',
      'lanewatch_size_class',
      'lanewatch_attempt',
      'gen_ai_operation_name',
      'gen_ai_provider_name',
      'gen_ai_request_model',
      'server_address',
      'http_response_status_code',
    ]) {
      assert.ok(label in labels, `label ${label} missing: ${JSON.stringify(labels)}`);
    }
    assert.equal(labels.job, 'collector-config-test', 'service.name becomes job');
    assert.equal(labels.instance, 'instance-1', 'service.instance.id becomes instance');
    // The other resource attributes stay off the series, on target_info (joined on job, instance).
    assert.ok(!('telemetry_sdk_language' in labels));
    const [targetInfo] = await prometheus.series('target_info');
    assert.equal(targetInfo?.job, 'collector-config-test');
    assert.equal(targetInfo?.telemetry_sdk_language, 'nodejs');
  });

  test('content attributes never reach Prometheus', async () => {
    assert.ok(prometheus);
    const all = await prometheus.series('{__name__=~".+"}');
    assert.ok(all.length > 0);
    assertNoCanary('Prometheus series', JSON.stringify(all));
    for (const key of [...Object.keys(CONTENT), ...Object.keys(COMMAND_LINE)]) {
      const label = key.replace(/[^a-zA-Z0-9]/g, '_');
      for (const name of [label, `otel_scope_${label}`]) {
        assert.ok(!all.some((labels) => name in labels), `label ${name} (from ${key}) reached Prometheus`);
      }
    }
    // …while the look-alikes that are neither content nor credentials did.
    const [labels] = await prometheus.series('lanewatch_time_to_first_text_seconds{lanewatch_lane="fast"}');
    assert.equal(labels?.url_path, '/v1/chat/completions');
    assert.equal(labels?.http_request_header_content_type, 'application/json');
  });

  test('content attributes are deleted from data points, spans, span events, log records, resources and scopes', async () => {
    assert.ok(sink);
    const bodies = (path: string) =>
      sink?.requests
        .filter((r) => r.path === path)
        .map((r) => r.body.toString('latin1'))
        .join('\n') ?? '';
    await eventually('both spans at the traces backend', async () =>
      bodies('/v1/traces').includes('chat with events') &&
      bodies('/v1/traces').includes('chat without events')
        ? true
        : undefined,
    );
    const sent = [
      ...(await sink.waitFor('/v1/metrics', 2)),
      ...(await sink.waitFor('/v1/traces')),
      ...(await sink.waitFor('/v1/logs')),
    ];
    for (const request of sent) {
      // Protobuf stores strings as raw UTF-8: a search over the bytes sees every key and value.
      const text = request.body.toString('latin1');
      assertNoCanary(`${request.path} (${request.contentType})`, text);
      for (const key of [...Object.keys(CONTENT), ...Object.keys(COMMAND_LINE)]) {
        assert.ok(!text.includes(key), `${request.path}: key ${key} left the collector`);
      }
      for (const key of Object.keys(KEPT)) {
        assert.ok(text.includes(key), `${request.path}: ${key} was deleted but is not content`);
      }
    }
    const traces = bodies('/v1/traces');
    assert.ok(traces.includes('lanewatch.first_text') && traces.includes('lanewatch.first_text_ms'));
    assert.ok(traces.includes('gen_ai.content.prompt'), 'the span event itself is kept');
    const logs = bodies('/v1/logs');
    assert.ok(logs.includes('gen_ai.user.message'), 'the GenAI event is kept, its body emptied');
    assert.ok(logs.includes('lane fast recovered'), 'an ordinary log body is kept');
  });

  test('no content in the collector or Prometheus logs', () => {
    assert.ok(collector && prometheus);
    assertNoCanary('collector log', collector.readLog());
    assertNoCanary('Prometheus log', prometheus.process.readLog());
    assert.doesNotMatch(collector.readLog(), /\terror\t/, 'the collector logged an error');
  });
});

describe('collector-config: scale-out.yaml keeps each lane on one processor replica', () => {
  const replicaSinks: OtlpSink[] = [];
  const collectors: Collector[] = [];
  let front: Collector | undefined;
  const lanes = Array.from({ length: 16 }, (_, i) => `lane-${String(i).padStart(2, '0')}`);

  before(async () => {
    // Two "replicas": lanewatch collectors whose OTLP/gRPC receiver stands in for a processor
    // replica's, relaying what they get to their own sink. The front collector runs scale-out.yaml.
    for (let i = 0; i < 2; i++) {
      const sink = await startOtlpSink();
      replicaSinks.push(sink);
      collectors.push(
        await startCollector({ processorEndpoint: sink.url, remoteWriteUrl: `${sink.url}/api/v1/write` }),
      );
    }
    const discard = await startOtlpSink();
    replicaSinks.push(discard);
    front = await startCollector({
      processorEndpoint: discard.url,
      remoteWriteUrl: `${discard.url}/api/v1/write`,
      extraConfigs: [collectorConfigPath('scale-out.yaml')],
      env: { LANEWATCH_PROCESSOR_REPLICAS: `[${collectors.map((c) => c.otlpGrpcEndpoint).join(', ')}]` },
    });
    collectors.push(front);
  });

  after(async () => {
    for (const collector of collectors.reverse()) await collector.stop();
    for (const sink of replicaSinks) await sink.close();
  });

  test('16 lanes over 2 replicas: every lane on exactly one, the same one batch after batch', async () => {
    assert.ok(front);
    const sinks = replicaSinks.slice(0, 2);
    const now = Date.now();
    /** Lanes seen by each replica in the requests it got after `marks`. */
    const lanesAt = (marks: readonly number[]) =>
      sinks.map((sink, i) => {
        const text = sink.requests
          .slice(marks[i])
          .map((r) => r.body.toString('latin1'))
          .join('\n');
        return lanes.filter((lane) => text.includes(lane));
      });
    const splits: string[][][] = [];
    for (const [round, timeNs] of [ns(now - 20_000), ns(now - 10_000)].entries()) {
      const marks = sinks.map((sink) => sink.requests.length);
      const request = metricsRequest(RESOURCE, [
        {
          name: MILESTONE_METRIC.first_text,
          unit: 's',
          points: lanes.map((lane) =>
            exponentialPoint({
              values: Array<number>(round + 1).fill(0.25),
              scale: 5,
              attributes: laneAttributes(lane),
              startNs: ns(now - 60_000),
              timeNs,
            }),
          ),
        },
      ]);
      await postOtlpJson(front.otlpHttpUrl, '/v1/metrics', request);
      splits.push(
        await eventually(`round ${round + 1}: all lanes at the replicas`, async () => {
          const split = lanesAt(marks);
          return split.flat().length >= lanes.length ? split : undefined;
        }),
      );
    }
    const [first, second] = splits;
    assert.ok(first && second);
    assert.deepEqual(
      first.flat().sort(),
      lanes,
      `each lane on exactly one replica: ${JSON.stringify(first)}`,
    );
    assert.ok(
      first.every((atReplica) => atReplica.length > 0),
      `one replica got every lane: ${JSON.stringify(first)}`,
    );
    assert.deepEqual(second, first, 'a lane moved between batches');
  });
});
