import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Collector, startCollector } from '../../../test/stack/collector.ts';
import { type OtlpSink, startOtlpSink } from '../../../test/stack/otlp-sink.ts';
import { codedPieces, sse, startForwardProxy, startScriptedServer, TEST_CA } from '../test/harness.ts';
import { MIN_NODE, supportedNode } from './instrumentation.ts';
import { MILESTONE_METRIC } from './names.ts';
import { registered } from './registered.ts';

const run = promisify(execFile);
const bodiesOf = (sink: { requests: readonly { path: string; body: Buffer }[] }, path: string) =>
  sink.requests
    .filter((r) => r.path === path)
    .map((r) => r.body.toString())
    .join('\n');
/** Every metric the sink received over OTLP/JSON, as exported. */
function metricsOf(sink: { requests: readonly { path: string; body: Buffer }[] }) {
  return sink.requests
    .filter((r) => r.path === '/v1/metrics')
    .flatMap((r) => JSON.parse(r.body.toString()).resourceMetrics)
    .flatMap((rm: { scopeMetrics: Array<{ metrics: unknown[] }> }) => rm.scopeMetrics)
    .flatMap((sm: { metrics: unknown[] }) => sm.metrics) as Array<{
    name: string;
    histogram?: { dataPoints: Array<{ explicitBounds: number[] }> };
    exponentialHistogram?: { aggregationTemporality: number };
  }>;
}
const fixture = (name: string) => fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url));
const CANARY = 'CANARY-regist-41c2';

/**
 * Runs test/fixtures/`app` under `node <flag> @lanewatch/instrumentation/register` — the built package,
 * resolved as users resolve it — against the provider at `target`, with `env` over this process's.
 */
function runRegistered(
  target: string,
  env: Record<string, string>,
  { flag = '--import', app = 'stream-app.mjs' }: { flag?: string; app?: string } = {},
) {
  return run(process.execPath, [flag, '@lanewatch/instrumentation/register', fixture(app)], {
    env: { ...process.env, TARGET_URL: target, CANARY, ...env },
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    timeout: 30_000,
  });
}

function chat() {
  const chunk = (delta: object) => sse({ model: 'gpt-test', choices: [{ index: 0, delta }] });
  return {
    headersAt: 5,
    pieces: [
      { at: 10, bytes: chunk({ role: 'assistant' }) },
      { at: 20, bytes: chunk({ content: `hi ${CANARY}` }) },
      { at: 30, bytes: sse({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }) },
      { at: 35, bytes: 'data: [DONE]\n\n' },
    ],
  };
}

// The package as users install it: the built `dist`, resolved through the package's exports.
for (const [flag, app] of [
  ['--import', 'stream-app.mjs'],
  ['--require', 'stream-app.cjs'],
] as const) {
  describe(`node ${flag} @lanewatch/instrumentation/register`, () => {
    it('exports exponential histograms for every milestone and one span, with no content, over OTLP/HTTP', async () => {
      const provider = await startScriptedServer(() => chat());
      const sink = await startOtlpSink();
      try {
        const { stdout } = await runRegistered(
          provider.url,
          {
            OTEL_SERVICE_NAME: 'register-test',
            OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_METRIC_EXPORT_INTERVAL: '60000',
            OTEL_NODE_RESOURCE_DETECTORS: 'env',
          },
          { flag, app },
        );
        assert.match(stdout, /^200 \d+/, 'the app got its response');
        const metricsBody = bodiesOf(sink, '/v1/metrics');
        const tracesBody = bodiesOf(sink, '/v1/traces');
        for (const name of Object.values(MILESTONE_METRIC)) {
          assert.ok(metricsBody.includes(`"name":"${name}"`), `${name} exported`);
        }
        assert.ok(metricsBody.includes('"exponentialHistogram"'), 'histograms are exponential');
        assert.ok(
          !metricsBody.includes('"explicitBounds"') || !metricsBody.includes('lanewatch.time_to'),
          'no explicit buckets for lanewatch',
        );
        assert.ok(metricsBody.includes('register-test'), 'service name from OTEL_SERVICE_NAME');
        // register records into its own meter, each point under a stand-in for its attribute set
        // (see own-meter.ts): every exported point has its attributes back, the stand-in none.
        for (const attribute of [
          '"lanewatch.lane"',
          '"openai/gpt-test"',
          '"lanewatch.outcome"',
          '"gen_ai.token.type"',
        ]) {
          assert.ok(metricsBody.includes(attribute), `${attribute} on the points`);
        }
        assert.ok(!metricsBody.includes('lanewatch.set'), 'no point leaves with its stand-in');
        assert.ok(tracesBody.includes('lanewatch.first_text'), 'span with milestone events');
        assert.ok(!`${metricsBody}${tracesBody}`.includes(CANARY), 'no content, key or credential');
      } finally {
        await provider.close();
        await sink.close();
      }
    });
  });
}

describe('register, the app calling an HTTPS provider that offers HTTP/2', () => {
  // Node 26's fetch (bundled undici 8) takes h2 from a server that offers it, as providers do; Node
  // 22's and 24's stay on HTTP/1.1. The app trusts the local certificate by NODE_EXTRA_CA_CERTS.
  const h2 = Number(process.versions.undici?.split('.')[0]) >= 8;
  it(`every milestone of the app's global-fetch call is exported (${h2 ? 'h2' : 'HTTP/1.1'} on this Node)`, async () => {
    const provider = await startScriptedServer(() => chat(), { http2: true });
    const sink = await startOtlpSink();
    const dir = mkdtempSync(join(tmpdir(), 'lanewatch-ca-'));
    try {
      const ca = join(dir, 'localhost.pem');
      writeFileSync(ca, TEST_CA);
      const { stdout } = await runRegistered(provider.url, {
        NODE_EXTRA_CA_CERTS: ca,
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
      });
      assert.match(stdout, /^200 \d+/, 'the app got its response');
      assert.deepEqual(provider.protocols, [h2 ? '2.0' : '1.1']);
      const metricsBody = bodiesOf(sink, '/v1/metrics');
      for (const name of Object.values(MILESTONE_METRIC)) {
        assert.ok(metricsBody.includes(`"name":"${name}"`), `${name} exported`);
      }
      const tracesBody = bodiesOf(sink, '/v1/traces');
      assert.ok(tracesBody.includes('lanewatch.first_text'), 'span with milestone events');
      assert.ok(tracesBody.includes('"openai_chat"'), 'the stream was read by its format');
      assert.ok(!`${metricsBody}${tracesBody}`.includes(CANARY), 'no content, key or credential');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await provider.close();
      await sink.close();
    }
  });
});

describe('register, the app calling a provider whose edge compresses the stream', () => {
  it("every milestone of the app's gzip-coded stream is exported, the call ok, before the app exits", async () => {
    const script = chat();
    const pieces = await codedPieces(script.pieces, 'gzip');
    const provider = await startScriptedServer(() => ({
      ...script,
      headers: { 'content-encoding': 'gzip' },
      pieces,
    }));
    const sink = await startOtlpSink();
    try {
      const { stdout } = await runRegistered(provider.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
      });
      assert.match(stdout, /^200 \d+/, 'the app got its response');
      assert.match(String(provider.requests[0]?.headers['accept-encoding']), /gzip/, 'fetch asked for gzip');
      const metricsBody = bodiesOf(sink, '/v1/metrics');
      for (const name of Object.values(MILESTONE_METRIC)) {
        assert.ok(metricsBody.includes(`"name":"${name}"`), `${name} exported`);
      }
      const tracesBody = bodiesOf(sink, '/v1/traces');
      assert.ok(tracesBody.includes('lanewatch.first_text'), 'span with milestone events');
      assert.match(
        tracesBody,
        /"lanewatch\.outcome","value":\{"stringValue":"ok"\}/,
        'the call is ok, not truncated',
      );
      assert.ok(!`${metricsBody}${tracesBody}`.includes(CANARY), 'no content, key or credential');
    } finally {
      await provider.close();
      await sink.close();
    }
  });
});

describe('register, the app behind a forward proxy named by its environment (NODE_USE_ENV_PROXY)', () => {
  // Node 24 and 26 (and 22 from 22.21) route global fetch through HTTP_PROXY when NODE_USE_ENV_PROXY
  // is set, as a company's egress is configured; Node 24's undici tunnels an http:// target with
  // CONNECT, Node 26's sends it to the proxy whole (absolute form).
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const supported = major >= 24 || (major === 22 && minor >= 21);
  it("the call is the provider's, not the proxy's, with every milestone", {
    skip: supported
      ? false
      : `Node ${process.version}'s fetch does not read NODE_USE_ENV_PROXY (22.21 and 24 do)`,
  }, async () => {
    const provider = await startScriptedServer(() => chat());
    const proxy = await startForwardProxy();
    const sink = await startOtlpSink();
    try {
      const { stdout } = await runRegistered(provider.url, {
        NODE_USE_ENV_PROXY: '1',
        HTTP_PROXY: proxy.url,
        NO_PROXY: '',
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
      });
      assert.match(stdout, /^200 \d+/, 'the app got its response');
      const providerPort = new URL(provider.url).port;
      assert.ok(
        proxy.seen.some((line) => line.includes(`:${providerPort}`)),
        `the call went through the proxy (it saw: ${proxy.seen.join('; ') || 'nothing'})`,
      );
      const tracesBody = bodiesOf(sink, '/v1/traces');
      assert.match(tracesBody, new RegExp(`"server\\.port","value":\\{"intValue":"?${providerPort}\\b`));
      assert.ok(tracesBody.includes('lanewatch.first_text'), 'span with milestone events');
      assert.ok(tracesBody.includes('"openai/gpt-test"'), 'the lane is the provider’s');
      const metricsBody = bodiesOf(sink, '/v1/metrics');
      for (const name of Object.values(MILESTONE_METRIC)) {
        assert.ok(metricsBody.includes(`"name":"${name}"`), `${name} exported`);
      }
      assert.ok(!`${metricsBody}${tracesBody}`.includes(CANARY), 'no content, key or credential');
    } finally {
      await provider.close();
      await proxy.close();
      await sink.close();
    }
  });
});

describe('register with OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta', () => {
  it("lanewatch's histograms are exported as deltas, as the application's own metrics are", async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      await runRegistered(provider.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
        OTEL_NODE_RESOURCE_DETECTORS: 'env',
      });
      const metrics = metricsOf(sink);
      const duration = metrics.find((m) => m.name === MILESTONE_METRIC.end);
      assert.equal(
        duration?.exponentialHistogram?.aggregationTemporality,
        1,
        'AGGREGATION_TEMPORALITY_DELTA',
      );
    } finally {
      await provider.close();
      await sink.close();
    }
  });
});

// OTEL_EXPORTER_OTLP_PROTOCOL=grpc, into the project's own collector (built from source, its OTLP
// gRPC receiver), which hands what it got on to a sink as OTLP/JSON.
describe('register with LANEWATCH_INFER_RETRIES', () => {
  /** The attempts of the exported lanewatch spans, in the order they were exported. */
  const attemptsOf = (sink: OtlpSink) =>
    [
      ...bodiesOf(sink, '/v1/traces').matchAll(
        /"key":"lanewatch\.attempt","value":\{"stringValue":"([^"]+)"/g,
      ),
    ].map((m) => m[1]);

  for (const [setting, expected] of [
    [undefined, ['1', '2']],
    ['false', ['1', '1']],
  ] as const) {
    it(`${setting ?? 'unset'}: an application's own retry of a 429 is exported as attempt ${expected[1]}`, async () => {
      let n = 0;
      const provider = await startScriptedServer(() =>
        n++ === 0
          ? { status: 429, headers: { 'content-type': 'application/json' }, pieces: [{ at: 1, bytes: '{}' }] }
          : chat(),
      );
      const sink = await startOtlpSink();
      try {
        const { stdout, stderr } = await runRegistered(
          provider.url,
          {
            OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            ...(setting === undefined ? {} : { LANEWATCH_INFER_RETRIES: setting }),
          },
          { app: 'retrying-app.mjs' },
        );
        assert.equal(stdout, '429 200\n');
        assert.equal(stderr, '');
        assert.deepEqual(attemptsOf(sink), expected);
        assert.ok(!bodiesOf(sink, '/v1/traces').includes(CANARY));
      } finally {
        await provider.close();
        await sink.close();
      }
    });
  }
});

describe('register with LANEWATCH_SPANS', () => {
  const env = (sink: OtlpSink, spans: string) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_NODE_RESOURCE_DETECTORS: 'env',
    LANEWATCH_SPANS: spans,
  });

  it("false: lanewatch's histograms and the application's own span are exported, lanewatch's span is not", async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      const { stdout, stderr } = await runRegistered(provider.url, env(sink, ' FALSE '), {
        app: 'traced-app.mjs',
      });
      assert.match(stdout, /^200 \d+/);
      assert.equal(stderr, '');
      const metrics = bodiesOf(sink, '/v1/metrics');
      for (const name of Object.values(MILESTONE_METRIC))
        assert.ok(metrics.includes(`"name":"${name}"`), name);
      const traces = bodiesOf(sink, '/v1/traces');
      assert.ok(traces.includes('"app-work"'), "the application's span is exported");
      assert.ok(!traces.includes('lanewatch.'), `no lanewatch span:\n${traces}`);
    } finally {
      await provider.close();
      await sink.close();
    }
  });

  it('a value that is not true or false is named once on stderr, and the spans stay on', async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      const { stdout, stderr } = await runRegistered(provider.url, env(sink, 'off'), {
        app: 'traced-app.mjs',
      });
      assert.match(stdout, /^200 \d+/);
      assert.match(stderr, /LANEWATCH_SPANS="off" is not true or false; lanewatch's spans stay on/);
      assert.equal(stderr.split('\n').filter(Boolean).length, 1, stderr);
      const traces = bodiesOf(sink, '/v1/traces');
      assert.ok(traces.includes('"app-work"'), "the application's span is exported");
      assert.ok(traces.includes('lanewatch.first_text'), "lanewatch's span, with its milestones");
    } finally {
      await provider.close();
      await sink.close();
    }
  });
});

describe('register with the other OTEL_* settings of its README', () => {
  it("each signal's own endpoint, used as given; OTEL_RESOURCE_ATTRIBUTES on the spans and the metrics", async () => {
    const provider = await startScriptedServer(() => chat());
    const metricsSink = await startOtlpSink();
    const tracesSink = await startOtlpSink();
    try {
      const { stdout, stderr } = await runRegistered(provider.url, {
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${metricsSink.url}/otlp/m`,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${tracesSink.url}/otlp/t`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,team=payments',
        OTEL_NODE_RESOURCE_DETECTORS: 'env',
      });
      assert.match(stdout, /^200 \d+/);
      assert.equal(stderr, '');
      assert.deepEqual(new Set(metricsSink.requests.map((r) => r.path)), new Set(['/otlp/m']));
      assert.deepEqual(new Set(tracesSink.requests.map((r) => r.path)), new Set(['/otlp/t']));
      const metrics = bodiesOf(metricsSink, '/otlp/m');
      const traces = bodiesOf(tracesSink, '/otlp/t');
      assert.ok(metrics.includes(`"name":"${MILESTONE_METRIC.first_text}"`));
      assert.ok(traces.includes('lanewatch.first_text'));
      for (const body of [metrics, traces]) {
        assert.ok(body.includes('"deployment.environment.name"') && body.includes('"staging"'), body);
        assert.ok(body.includes('"team"') && body.includes('"payments"'), body);
      }
    } finally {
      await provider.close();
      await metricsSink.close();
      await tracesSink.close();
    }
  });

  it("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=explicit_bucket_histogram: lanewatch's histograms come with explicit buckets", async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      await runRegistered(provider.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION: 'explicit_bucket_histogram',
        OTEL_NODE_RESOURCE_DETECTORS: 'env',
      });
      const metrics = metricsOf(sink);
      for (const name of Object.values(MILESTONE_METRIC)) {
        const metric = metrics.find((m) => m.name === name);
        assert.ok(metric?.histogram, `${name} is an explicit-bucket histogram`);
        assert.equal(metric.exponentialHistogram, undefined, name);
        assert.ok((metric.histogram.dataPoints[0]?.explicitBounds.length ?? 0) > 0, `${name} has bounds`);
      }
    } finally {
      await provider.close();
      await sink.close();
    }
  });
});

describe('register with OTEL_SDK_DISABLED', () => {
  it('true (in any case): nothing listens to requests or is exported, and the app runs as before', async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    const env = (disabled: string) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SDK_DISABLED: disabled,
    });
    try {
      const off = await runRegistered(provider.url, env(' True '), { app: 'listening-app.mjs' });
      assert.match(off.stdout, /^200 \d+\nlistening false\n$/);
      assert.equal(off.stderr, '');
      assert.deepEqual(
        sink.requests.map((r) => r.path),
        [],
      );
      // The same run with the SDK on listens and exports.
      const on = await runRegistered(provider.url, env('false'), { app: 'listening-app.mjs' });
      assert.match(on.stdout, /^200 \d+\nlistening true\n$/);
      assert.ok(bodiesOf(sink, '/v1/metrics').includes(`"name":"${MILESTONE_METRIC.first_text}"`));
    } finally {
      await provider.close();
      await sink.close();
    }
  });
});

describe('register over OTLP/gRPC, into the collector', () => {
  let sink: OtlpSink | undefined;
  let collector: Collector | undefined;
  let overlayDir: string | undefined;
  before(async () => {
    sink = await startOtlpSink();
    overlayDir = mkdtempSync(join(tmpdir(), 'lanewatch-grpc-'));
    const overlay = join(overlayDir, 'json-out.yaml');
    writeFileSync(
      overlay,
      'exporters:\n  otlp_http/processor:\n    encoding: json\n  otlp_http/traces:\n    encoding: json\n',
    );
    collector = await startCollector({
      processorEndpoint: sink.url,
      remoteWriteUrl: `${sink.url}/api/v1/write`,
      tracesEndpoint: sink.url,
      extraConfigs: [overlay],
    });
  });
  after(async () => {
    await collector?.stop();
    await sink?.close();
    if (overlayDir !== undefined) rmSync(overlayDir, { recursive: true, force: true });
  });

  it('exports the exponential histograms and the span over gRPC, with no content, and says nothing on stderr', async () => {
    const provider = await startScriptedServer(() => chat());
    try {
      const { stdout, stderr } = await runRegistered(provider.url, {
        OTEL_SERVICE_NAME: 'register-grpc-test',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://${collector?.otlpGrpcEndpoint}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
        OTEL_NODE_RESOURCE_DETECTORS: 'env',
      });
      assert.match(stdout, /^200 \d+/, 'the app got its response');
      assert.equal(stderr, '', 'no warning: grpc is a protocol lanewatch exports over');
      const s = sink as OtlpSink;
      const metricsBody = (await s.waitFor('/v1/metrics')).map((r) => r.body.toString()).join('\n');
      const tracesBody = (await s.waitFor('/v1/traces')).map((r) => r.body.toString()).join('\n');
      for (const name of Object.values(MILESTONE_METRIC)) {
        assert.ok(metricsBody.includes(`"name":"${name}"`), `${name} arrived through the collector`);
      }
      assert.ok(metricsBody.includes('"exponentialHistogram"'), 'histograms are exponential');
      assert.ok(metricsBody.includes('register-grpc-test'), 'service name from OTEL_SERVICE_NAME');
      assert.ok(tracesBody.includes('lanewatch.first_text'), 'span with milestone events');
      assert.ok(!`${metricsBody}${tracesBody}`.includes(CANARY), 'no content, key or credential');
    } finally {
      await provider.close();
    }
  });

  it('exits within the exit deadline when the gRPC endpoint accepts connections and never answers', async () => {
    const provider = await startScriptedServer(() => chat());
    // A refused connection fails a gRPC export at once; a peer that takes the connection and says
    // nothing makes it wait out its 10 s deadline — unless the exit deadline (2 s) cuts it short.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket.on('error', () => {}));
    }).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const started = performance.now();
      const { stdout } = await runRegistered(provider.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      });
      assert.match(stdout, /^200 \d+/);
      const seconds = (performance.now() - started) / 1000;
      assert.ok(seconds < 6, `the process ended ${seconds.toFixed(1)} s after it started`);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await provider.close();
    }
  });
});

describe("register's resource", () => {
  it('carries the process (pid, runtime, script) but not its command line, where a key may be', async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    const argumentCanary = 'CANARY-argv-7c1d';
    try {
      const { stdout } = await run(
        process.execPath,
        [
          '--import',
          '@lanewatch/instrumentation/register',
          fixture('stream-app.mjs'),
          `--api-key=${argumentCanary}`,
        ],
        {
          env: {
            ...process.env,
            TARGET_URL: provider.url,
            CANARY,
            OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_NODE_RESOURCE_DETECTORS: '', // the Node SDK's default detectors
          },
          cwd: fileURLToPath(new URL('..', import.meta.url)),
          timeout: 30_000,
        },
      );
      assert.match(stdout, /^200 \d+/);
      for (const path of ['/v1/metrics', '/v1/traces']) {
        const body = bodiesOf(sink, path);
        assert.ok(
          body.includes('"process.pid"') && body.includes('"process.command"'),
          `${path}: the process`,
        );
        assert.ok(!body.includes('process.command_args'), `${path}: no command line`);
        assert.ok(!body.includes(argumentCanary), `${path}: no argument`);
      }
    } finally {
      await provider.close();
      await sink.close();
    }
  });
});

describe('register when the process is stopped', () => {
  it('registered() is undefined where register did not start this process (reading it starts nothing)', () => {
    assert.equal(registered(), undefined);
  });

  const env = (sink: OtlpSink, extra: Record<string, string> = {}) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRIC_EXPORT_INTERVAL: '60000', // no export of its own before the signal
    ...extra,
  });
  /** Runs serving-app.mjs under register, sends `signal` once it is ready, and reports how it ended. */
  async function stopWith(signal: NodeJS.Signals, env: Record<string, string>, target: string) {
    const child = spawn(
      process.execPath,
      ['--import', '@lanewatch/instrumentation/register', fixture('serving-app.mjs')],
      {
        env: { ...process.env, TARGET_URL: target, CANARY, ...env },
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const ready = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('ready\n')) resolve();
      });
    });
    const ended = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    try {
      await Promise.race([ready, ended]);
      assert.match(stdout, /^200 \d+\nready\n$/, `the app made its call and waits:\n${stdout}${stderr}`);
      child.kill(signal);
      const [code, endedBy] = await ended;
      return { code, signal: endedBy, stdout, stderr };
    } finally {
      clearTimeout(killer);
    }
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} ends the process at once, by the signal, even while its main thread is busy: register installs no handler`, async () => {
      const provider = await startScriptedServer(() => chat());
      const sink = await startOtlpSink();
      try {
        const started = performance.now();
        // The app is busy for 8 s after `ready`; a JavaScript signal listener would run only after.
        const ended = await stopWith(signal, env(sink, { BUSY: '1' }), provider.url);
        const seconds = (performance.now() - started) / 1000;
        assert.deepEqual([ended.code, ended.signal], [null, signal], ended.stderr);
        assert.doesNotMatch(ended.stdout, /busy job done/);
        assert.ok(seconds < 6, `ended ${seconds.toFixed(1)} s after it started`);
      } finally {
        await provider.close();
        await sink.close();
      }
    });
  }

  it('SIGTERM that the app handles, awaiting registered()?.shutdown() as the README says: the call is exported, and the app exits as it chooses', async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      const ended = await stopWith('SIGTERM', env(sink, { STOP_HANDLER: '1' }), provider.url);
      assert.deepEqual([ended.code, ended.signal], [0, null], 'the exit the app chose');
      assert.match(ended.stdout, /stopping\n$/);
      assert.ok(bodiesOf(sink, '/v1/metrics').includes(MILESTONE_METRIC.end), 'the call was exported');
    } finally {
      await provider.close();
      await sink.close();
    }
  });

  it('process.exit() after `await registered()?.shutdown()`: the call is exported', async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      const { stdout } = await runRegistered(provider.url, env(sink, { SHUTDOWN_FIRST: '1' }), {
        app: 'exiting-app.mjs',
      });
      assert.match(stdout, /^200 \d+/);
      assert.ok(bodiesOf(sink, '/v1/metrics').includes(MILESTONE_METRIC.end), 'the call was exported');
    } finally {
      await provider.close();
      await sink.close();
    }
  });
});

describe('register when telemetry cannot be delivered', () => {
  it("the app still succeeds, and exits without waiting out the exporters' 10 s retries, when the OTLP endpoint refuses connections", async () => {
    const provider = await startScriptedServer(() => chat());
    try {
      const started = performance.now();
      const { stdout } = await runRegistered(provider.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      });
      assert.match(stdout, /^200 \d+/);
      // The OTLP exporters retry a refused export for OTEL_EXPORTER_OTLP_TIMEOUT (10 s): about 9 s
      // of waiting at exit without the exit deadline (2 s by default). Generous for a slow machine.
      const seconds = (performance.now() - started) / 1000;
      assert.ok(seconds < 6, `the process ended ${seconds.toFixed(1)} s after it started`);
    } finally {
      await provider.close();
    }
  });

  it('an OTLP protocol or metrics exporter it does not know is named on stderr with what to write, and the app runs', async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      const { stdout, stderr } = await runRegistered(provider.url, {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http',
        OTEL_METRICS_EXPORTER: 'otlp,prometheus',
        OTEL_TRACES_EXPORTER: 'none',
      });
      assert.match(stdout, /^200 \d+/);
      assert.match(
        stderr,
        /OTEL_EXPORTER_OTLP_PROTOCOL="http" is not one of http\/protobuf, http\/json, grpc/,
      );
      assert.match(stderr, /OTEL_METRICS_EXPORTER "prometheus" is not one lanewatch exports to/);
      assert.equal(stderr.split('\n').filter(Boolean).length, 2, `each said once:\n${stderr}`);
      // Nothing lost to the typo: the metrics went over http/protobuf.
      const [metrics] = await sink.waitFor('/v1/metrics');
      assert.match(metrics?.contentType ?? '', /protobuf/);
      assert.ok(metrics?.body.includes(MILESTONE_METRIC.end), 'the call was exported');
    } finally {
      await provider.close();
      await sink.close();
    }
  });

  it('a malformed LANEWATCH_LANE_MAP is reported once with what to fix, and the app runs', async () => {
    const provider = await startScriptedServer(() => chat());
    try {
      const { stdout, stderr } = await runRegistered(provider.url, {
        LANEWATCH_LANE_MAP: 'fast',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_TRACES_EXPORTER: 'none',
      });
      assert.match(stdout, /^200 \d+/);
      assert.match(stderr, /LANEWATCH_LANE_MAP entry 1: expected name=url/);
    } finally {
      await provider.close();
    }
  });
});

describe('inside an existing NodeSDK with @opentelemetry/auto-instrumentations-node', () => {
  for (const producer of [false, true]) {
    it(`one lanewatch span and one count per call, beside the HTTP spans${producer ? ' — its reader collecting lanewatch’s own meter (metricProducer), calls batched' : ''}`, async () => {
      const provider = await startScriptedServer(() => chat());
      const sink = await startOtlpSink();
      try {
        const { stdout } = await run(process.execPath, [fixture('with-node-sdk.mjs')], {
          env: {
            ...process.env,
            LANEWATCH_FIXTURE_PRODUCER: producer ? '1' : '0',
            TARGET_URL: provider.url,
            OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_METRICS_EXPORTER: 'otlp',
            OTEL_NODE_RESOURCE_DETECTORS: 'env',
          },
          cwd: fileURLToPath(new URL('..', import.meta.url)),
          timeout: 60_000,
        });
        assert.match(stdout, /done/);
        const traces = sink.requests
          .filter((r) => r.path === '/v1/traces')
          .map((r) => JSON.parse(r.body.toString()));
        const spans = traces.flatMap((t) =>
          t.resourceSpans.flatMap(
            (rs: { scopeSpans: Array<{ scope: { name: string }; spans: unknown[] }> }) =>
              rs.scopeSpans.flatMap((ss) => ss.spans.map(() => ss.scope.name)),
          ),
        );
        assert.equal(
          spans.filter((s: string) => s === '@lanewatch/instrumentation').length,
          3,
          'one lanewatch span per call',
        );
        assert.ok(
          spans.some((s: string) => s.includes('undici')),
          'the auto-instrumentations made their HTTP spans',
        );
        const metrics = bodiesOf(sink, '/v1/metrics');
        const counts = [
          ...metrics.matchAll(/"name":"gen_ai\.client\.operation\.duration".*?"count":"?(\d+)"?/g),
        ].map((m) => Number(m[1]));
        assert.ok(counts.length > 0, 'duration exported');
        assert.equal(counts.at(-1), 3, 'counted once per call');
        assert.ok(metrics.includes('"openai/gpt-test"'), 'the lane on the points');
        assert.ok(!metrics.includes('lanewatch.set'), 'no point leaves with its stand-in');
      } finally {
        await provider.close();
        await sink.close();
      }
    });
  }
});

/** A Node older than lanewatch supports on this machine's PATH (the machine's own Node 20 here), if any. */
function olderNode(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(':').filter((d) => d !== '' && !d.includes('node_modules'));
  for (const dir of [...dirs, '/usr/bin', '/usr/local/bin']) {
    try {
      const path = `${dir}/node`;
      const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      if (!supportedNode(version)) return path;
    } catch {}
  }
  return undefined;
}

describe('register on a Node older than 22.15', () => {
  it('knows which versions it supports', () => {
    assert.equal(supportedNode('20.20.2'), false);
    assert.equal(supportedNode('22.14.0'), false);
    assert.equal(supportedNode('22.15.0'), true);
    assert.equal(supportedNode('23.0.0'), true);
    assert.equal(supportedNode('24.21.0'), true);
    // The package's engines field says the same, so npm warns where lanewatch would stay off.
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    };
    assert.equal(manifest.engines.node, `>=${MIN_NODE.join('.')}.0`);
  });

  const node = olderNode();
  it('says so once on stderr, measures nothing, and the app runs as before', {
    skip: node === undefined ? 'no Node older than 22.15 on this machine to run it with' : false,
  }, async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      const { stdout, stderr } = await run(
        node as string,
        ['--import', '@lanewatch/instrumentation/register', fixture('stream-app.mjs')],
        {
          env: { ...process.env, TARGET_URL: provider.url, CANARY, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
          cwd: fileURLToPath(new URL('..', import.meta.url)),
          timeout: 30_000,
        },
      );
      assert.match(stdout, /^200 \d+/);
      assert.match(
        stderr,
        /^lanewatch: Node v\d+\.\d+\.\d+ is not supported \(needs 22\.15 or later\); nothing is measured\n$/,
      );
      assert.equal(sink.requests.length, 0, 'nothing exported');
    } finally {
      await sink.close();
      await provider.close();
    }
  });

  it('inside an existing NodeSDK, the class stays off and says so through the diag logger', {
    skip: node === undefined ? 'no Node older than 22.15 on this machine to run it with' : false,
  }, async () => {
    const provider = await startScriptedServer(() => chat());
    const sink = await startOtlpSink();
    try {
      const { stdout, stderr } = await run(node as string, [fixture('with-node-sdk.mjs')], {
        env: {
          ...process.env,
          TARGET_URL: provider.url,
          OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_METRICS_EXPORTER: 'otlp',
          OTEL_LOG_LEVEL: 'warn',
        },
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        timeout: 60_000,
      });
      assert.equal(
        stderr.match(/not supported \(needs 22\.15 or later\); lanewatch stays off/g)?.length,
        1,
        stderr,
      );
      assert.match(stdout, /done\n$/);
      const exported = bodiesOf(sink, '/v1/traces') + bodiesOf(sink, '/v1/metrics');
      assert.ok(!exported.includes('@lanewatch/instrumentation'), 'no lanewatch span or metric');
    } finally {
      await sink.close();
      await provider.close();
    }
  });
});
