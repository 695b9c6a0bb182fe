import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type ProviderServer, type Script, startProviderServer } from '@lanewatch/simulator';
import { DEFAULT_EVALUATION_CONFIG } from '../evaluation/evaluation-config.ts';
import { createAggregationWindows } from '../server/aggregation-windows.ts';
import { startProcessor } from '../server/processor.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { startOtlpJsonSink } from '../telemetry/otlp-json-sink.test-helper.ts';
import { freePort } from '../wait.test-helper.ts';
import { killAll, lanewatch } from './cli-process.test-helper.ts';
import { PROVIDER_FORMATS } from './provider-request.ts';

// `lanewatch probe` as a user runs it: a real process, against local provider servers speaking each wire
// format, with canaries in every piece of content and in the key, which must appear nowhere.

const TEXT_CANARY = 'CANARY-text-5d1e';
const THOUGHT_CANARY = 'CANARY-thought-77ab';
const TOOL_CANARY = 'CANARY-tool-90cc';
const ERROR_CANARY = 'CANARY-error-31f0';
const KEY_CANARY = 'sk-CANARY-key-e4b2';
const CANARIES = [
  TEXT_CANARY,
  THOUGHT_CANARY,
  TOOL_CANARY,
  ERROR_CANARY,
  KEY_CANARY,
  'Return the word ready',
];

function stream(): Script {
  return {
    kind: 'stream',
    headersDelayMs: 20,
    pieces: [
      { kind: 'start', delayMs: 2 },
      { kind: 'reasoning', delayMs: 10, text: ` ${THOUGHT_CANARY}` },
      { kind: 'tool-call', delayMs: 5, call: 0, name: 'lookup', args: JSON.stringify({ q: TOOL_CANARY }) },
      { kind: 'text', delayMs: 10, text: TEXT_CANARY },
      { kind: 'text', delayMs: 5, text: ` ${TEXT_CANARY}` },
      { kind: 'finish', delayMs: 2, reason: 'stop' },
      { kind: 'usage', delayMs: 0 },
      { kind: 'done', delayMs: 0 },
    ],
    usage: { inputTokens: 12, outputTokens: 5 },
  };
}

function assertNoContent(text: string): void {
  for (const canary of CANARIES) assert.ok(!text.includes(canary), `"${canary}" leaked:\n${text}`);
}

let server: ProviderServer;
const keysSeen: (string | undefined)[] = [];

before(async () => {
  server = await startProviderServer({
    respond: (request) => {
      const h = request.headers;
      const auth = h.authorization ?? h['x-api-key'] ?? h['x-goog-api-key'];
      keysSeen.push(Array.isArray(auth) ? auth[0] : auth);
      return stream();
    },
  });
});
after(async () => {
  killAll();
  await server.close();
});

describe('lanewatch probe against each wire format', { concurrency: true }, () => {
  for (const format of PROVIDER_FORMATS) {
    it(`${format}: every milestone measured, no content printed`, async () => {
      const run = lanewatch(
        [
          'probe',
          '--base-url',
          server.url,
          '--model',
          'probe-model',
          '--format',
          format,
          '--samples',
          '4',
          '--interval',
          '0',
          '--json',
        ],
        { env: { LANEWATCH_PROBE_API_KEY: KEY_CANARY } },
      );
      const done = await run.finished;
      assert.equal(done.code, 0, done.stderr);
      assertNoContent(done.stdout + done.stderr);
      const report = JSON.parse(done.stdout) as {
        format: string;
        calls: number;
        outcomes: Record<string, number>;
        milestones: Record<
          string,
          { ok: number; p50: number; p95: number; p99: number; max: number; errors: number }
        >;
      };
      assert.equal(report.format, format);
      assert.equal(report.calls, 4);
      assert.deepEqual(report.outcomes, { ok: 4 });
      for (const key of [
        'time_to_headers',
        'time_to_first_chunk',
        'time_to_first_output',
        'time_to_first_text',
        'duration',
      ]) {
        const m = report.milestones[key];
        assert.ok(m, `${format} ${key}`);
        assert.equal(m.ok, 4, `${format} ${key}`);
        assert.ok(m.p50 > 0 && m.p50 <= m.p95 && m.p95 <= m.p99 && m.p99 <= m.max, `${format} ${key}`);
      }
      // Reasoning comes before text in every format: first output is earlier than first text.
      assert.ok(
        (report.milestones.time_to_first_output?.p50 ?? 1) < (report.milestones.time_to_first_text?.p50 ?? 0),
      );
    });
  }

  it('prints the table by default, the endpoint without its secrets, and the key reaches the server', async () => {
    const done = await lanewatch(
      [
        'probe',
        '--base-url',
        `${server.url}/v1`,
        '--model',
        'probe-model',
        '--samples',
        '3',
        '--interval',
        '0',
      ],
      { env: { LANEWATCH_PROBE_API_KEY: KEY_CANARY } },
    ).finished;
    assert.equal(done.code, 0, done.stderr);
    assertNoContent(done.stdout + done.stderr);
    assert.match(
      done.stdout,
      /3 samples of probe-model at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(openai-chat, from the URL\)/,
    );
    assert.match(done.stdout, /^milestone +ok +p50 s +p95 s +p99 s +max s +errors$/m);
    for (const key of [
      'time_to_headers',
      'time_to_first_chunk',
      'time_to_first_output',
      'time_to_first_text',
      'duration',
    ]) {
      assert.match(done.stdout, new RegExp(`^${key} +3 +[\\d.]+ +[\\d.]+ +[\\d.]+ +[\\d.]+ +0$`, 'm'));
    }
    assert.ok(keysSeen.some((k) => k?.includes(KEY_CANARY)));
  });
});

describe('lanewatch probe when things go wrong', { concurrency: true }, () => {
  it('401: stops at once, no retry, one line naming the variable to set', async () => {
    const refusing = await startProviderServer({
      respond: () => ({ kind: 'error', status: 401, headersDelayMs: 5, message: ERROR_CANARY }),
    });
    try {
      const done = await lanewatch(
        ['probe', '--base-url', `${refusing.url}/v1`, '--model', 'm', '--interval', '0'],
        {
          env: { LANEWATCH_PROBE_API_KEY: KEY_CANARY },
        },
      ).finished;
      assert.equal(done.code, 3);
      assert.equal(refusing.sends.length, 1, 'exactly one request: no retry, no further samples');
      const lines = done.stderr.trim().split('\n');
      assert.equal(lines.length, 1, done.stderr);
      assert.match(
        lines[0] as string,
        /^lanewatch probe: http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered 401: the API key was refused; set LANEWATCH_PROBE_API_KEY \(or --api-key\)/,
      );
      assertNoContent(done.stdout + done.stderr);
    } finally {
      await refusing.close();
    }
  });

  it('429 with Retry-After: backs off at least that long, then succeeds; the 429 is counted', async () => {
    let first = true;
    const limited = await startProviderServer({
      respond: () => {
        if (!first) return stream();
        first = false;
        return { kind: 'error', status: 429, headersDelayMs: 5, retryAfterSeconds: 1, message: ERROR_CANARY };
      },
    });
    try {
      const done = await lanewatch(
        [
          'probe',
          '--base-url',
          limited.url,
          '--model',
          'm',
          '--format',
          'anthropic',
          '--samples',
          '2',
          '--interval',
          '0',
          '--json',
        ],
        { env: { LANEWATCH_PROBE_API_KEY: KEY_CANARY } },
      ).finished;
      assert.equal(done.code, 0, done.stderr);
      const report = JSON.parse(done.stdout) as {
        calls: number;
        retries: number;
        backoff_s: number[];
        errors: Record<string, number>;
        outcomes: Record<string, number>;
      };
      assert.equal(report.calls, 3);
      assert.equal(report.retries, 1);
      assert.deepEqual(report.errors, { rate_limited: 1 });
      assert.deepEqual(report.outcomes, { error: 1, ok: 2 });
      assert.ok((report.backoff_s[0] ?? 0) >= 1, `waited ${report.backoff_s[0]} s`);
      const [a, b] = [limited.sends[0]?.request.arrivedAt ?? 0, limited.sends[1]?.request.arrivedAt ?? 0];
      assert.ok(b - a >= 1000, `the retry came ${b - a} ms after the 429`);
      assertNoContent(done.stdout + done.stderr);
    } finally {
      await limited.close();
    }
  });

  it('a bad URL exits 2 with what to fix, and never echoes it', async () => {
    const closed = await freePort();
    const [notUrl, query, nobody, blocked] = await Promise.all(
      [
        ['--base-url', `nope ${KEY_CANARY}`],
        ['--base-url', `http://127.0.0.1:${closed}/v1?key=${KEY_CANARY}`],
        ['--base-url', `http://127.0.0.1:${closed}/v1`],
        ['--base-url', 'http://127.0.0.1:1/v1'],
      ].map((args) => lanewatch(['probe', ...args, '--model', 'm']).finished),
    );
    for (const done of [notUrl, query, nobody, blocked]) {
      assert.equal(done?.code, 2, done?.stderr);
      assertNoContent(`${done?.stdout}${done?.stderr}`);
    }
    assert.match(
      notUrl?.stderr ?? '',
      /^lanewatch probe: --base-url is not a URL: give the endpoint's base, e\.g\./,
    );
    assert.match(query?.stderr ?? '', /must not carry a query string/);
    assert.match(
      nobody?.stderr ?? '',
      /cannot reach 127\.0\.0\.1:\d+ \(connection_refused\): check --base-url/,
    );
    assert.match(blocked?.stderr ?? '', /fetch refuses port 1 .*: use another port in --base-url/);
  });

  it('exports its histograms to the processor with --otlp-endpoint', async () => {
    const windows = createAggregationWindows({ windowS: 60, sliceS: 10 });
    const processor = await startProcessor({
      port: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      windows,
      intervalS: 3600,
      windowS: 60,
      config: { ...DEFAULT_EVALUATION_CONFIG, minSamples: 5 },
    });
    try {
      const done = await lanewatch([
        'probe',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--format',
        'ollama',
        '--samples',
        '6',
        '--interval',
        '0',
        '--lane',
        'probed',
        '--otlp-endpoint',
        processor.url,
      ]).finished;
      assert.equal(done.code, 0, done.stderr);
      const records = await processor.loop.evaluateNow();
      const probed = records.find((r) => r.lane === 'probed');
      assert.equal(probed?.samples, 6);
      assert.equal(probed?.quantiles.time_to_first_text?.samples, 6);
      assert.equal(probed?.state, 'healthy');
    } finally {
      await processor.close();
    }
  });

  it('sends OTEL_EXPORTER_OTLP_HEADERS with its export, as the --otlp-endpoint credentials message advises', async () => {
    const sink = await startOtlpJsonSink();
    try {
      const done = await lanewatch(
        [
          'probe',
          '--base-url',
          server.url,
          '--model',
          'm',
          '--format',
          'ollama',
          '--samples',
          '2',
          '--interval',
          '0',
          '--otlp-endpoint',
          sink.url,
        ],
        { env: { OTEL_EXPORTER_OTLP_HEADERS: `authorization=Basic%20${KEY_CANARY}` } },
      ).finished;
      assert.equal(done.code, 0, done.stderr);
      // Histograms only: the sink's points (gauges and sums) are empty, the request is what counts.
      const request = await sink.waitFor(() => true);
      assert.equal(request.headers.authorization, `Basic ${KEY_CANARY}`);
      assertNoContent(`${done.stdout}${done.stderr}`);
    } finally {
      await sink.close();
    }
  });

  it('with --otlp-endpoint down: measures, says the export failed, exits 1 — without waiting out 10 s retries', async () => {
    // A port nothing listens on: every export round is refused and retried by the exporter.
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    const probe = lanewatch([
      'probe',
      '--base-url',
      server.url,
      '--model',
      'm',
      '--format',
      'ollama',
      '--samples',
      '3',
      '--interval',
      '0',
      '--otlp-endpoint',
      `http://127.0.0.1:${port}`,
    ]);
    // Timed from the probe's first line, printed once its SDK is up: how long a loaded machine takes
    // to start a process and load OpenTelemetry is not what this bounds (one CI run took 10.3 s in all).
    await probe.stdoutMatches(/^lanewatch probe: 3 samples of m at /m);
    const started = performance.now();
    const done = await probe.finished;
    const seconds = (performance.now() - started) / 1000;
    assert.equal(done.code, 1, done.stderr);
    assert.match(done.stdout, /time_to_first_text|first_text/);
    assert.match(
      done.stderr,
      /OTLP export rounds? to http:\/\/127\.0\.0\.1:\d+\/ failed; is the endpoint up\?/,
    );
    // The exporter's default retries run for up to 10 s per round (unbounded, the probe ended 8.5 s
    // after its first line here); the probe bounds them to 2 s (~2 s after its first line).
    assert.ok(seconds < 6, `the probe ended ${seconds.toFixed(1)} s after its first line`);
  });
});
