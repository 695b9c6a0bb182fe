import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CliContext } from '../cli/cli-context.ts';
import { runCli } from '../cli/run-cli.ts';
import { PROCESSOR_INSTRUMENT, TELEMETRY_ATTR } from './instrument-names.ts';
import { type SinkPoint, startOtlpJsonSink } from './otlp-json-sink.test-helper.ts';

const LANES = fileURLToPath(new URL('../lanes-file/lanes.example.yaml', import.meta.url));

/** `lanewatch serve` in this process, stopped when `stop` resolves. */
function serve(env: Record<string, string>, stop: Promise<string>, args: readonly string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const context: CliContext = {
    env: { LANEWATCH_PORT: '0', LANEWATCH_STORE: 'memory:', ...env },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stopRequested: stop,
  };
  return { code: runCli(['serve', '--lanes', LANES, '--interval', '1', ...args], context), out, err };
}

describe('lanewatch serve: its own metrics', () => {
  it('exports them to LANEWATCH_OTLP_ENDPOINT at OTEL_METRIC_EXPORT_INTERVAL, as lanewatch-processor', async () => {
    const sink = await startOtlpJsonSink();
    let stop = (_signal: string) => {};
    const run = serve(
      {
        LANEWATCH_OTLP_ENDPOINT: `${sink.url}/`,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '100',
      },
      new Promise((resolve) => {
        stop = resolve;
      }),
    );
    const states = (points: readonly SinkPoint[]) =>
      points.filter((p) => p.metric === PROCESSOR_INSTRUMENT.laneState.name);
    try {
      // The lanes file's lanes get a record (unknown, no calls yet) from the first evaluation on.
      const request = await sink.waitFor((points) => states(points).length > 0);
      assert.equal(request.path, '/v1/metrics');
      assert.equal(request.headers['content-type'], 'application/json');
      const lanes = new Set(states(request.points).map((p) => p.attributes[TELEMETRY_ATTR.lane]));
      assert.ok(lanes.has('local') && lanes.has('hosted-fast'), [...lanes].join());
      assert.ok(states(request.points).every((p) => p.resource['service.name'] === 'lanewatch-processor'));
      assert.match(run.out.join(''), new RegExp(`own metrics to ${sink.url}/v1/metrics every 0.1 s`));
    } finally {
      stop('SIGTERM');
      assert.equal(await run.code, 0);
      await sink.close();
    }
  });

  it('--otlp-endpoint with a path and a query: posts to PATH/v1/metrics?QUERY, and prints neither query nor credentials', async () => {
    const SECRET = 'CANARY-9d2b';
    const sink = await startOtlpJsonSink();
    const endpoint = sink.url.replace('http://', `http://user:${SECRET}@`);
    let stop = (_signal: string) => {};
    const run = serve(
      { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json', OTEL_METRIC_EXPORT_INTERVAL: '100' },
      new Promise((resolve) => {
        stop = resolve;
      }),
      ['--otlp-endpoint', `${endpoint}/base?tenant=${SECRET}`],
    );
    try {
      const request = await sink.waitFor((points) => points.length > 0);
      assert.equal(request.path, `/base/v1/metrics?tenant=${SECRET}`);
      assert.match(run.out.join(''), new RegExp(`own metrics to ${sink.url}/base/v1/metrics every 0.1 s\n`));
    } finally {
      stop('SIGTERM');
      assert.equal(await run.code, 0);
      await sink.close();
    }
    const printed = run.out.join('') + run.err.join('');
    assert.ok(!printed.includes(SECRET), printed);
  });

  it('exports nothing when no endpoint is set, and says so', async () => {
    const run = serve({}, Promise.resolve('SIGTERM'));
    assert.equal(await run.code, 0);
    assert.match(run.out.join(''), /own metrics not exported \(no OTLP endpoint\)/);
  });

  it('exits 2 naming a variable that cannot configure the export', async () => {
    const run = serve(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      Promise.resolve('SIGTERM'),
    );
    assert.equal(await run.code, 2);
    assert.match(run.err.join(''), /OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf or http\/json/);
  });
});
