import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { killAll, lanewatch } from '../probe/cli-process.test-helper.ts';
import type { LaneHealthDocument } from '../store/file-store.ts';
import { PROCESSOR_INSTRUMENT } from '../telemetry/instrument-names.ts';
import { type OtlpJsonSink, startOtlpJsonSink } from '../telemetry/otlp-json-sink.test-helper.ts';

// `lanewatch serve` as a real process: what only the process itself can show — its signal handling,
// and the OpenTelemetry variables its exporter reads from the process environment.

/** The inherited environment without any LANEWATCH_* or OTEL_* setting of the machine running the tests. */
function cleanEnv(env: Record<string, string>): Record<string, string | undefined> {
  const cleared: Record<string, undefined> = {};
  for (const key of Object.keys(process.env)) {
    if (key.startsWith('LANEWATCH_') || key.startsWith('OTEL_')) cleared[key] = undefined;
  }
  return { ...cleared, ...env };
}

let dir: string;
let sink: OtlpJsonSink;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'serve-process-'));
  await writeFile(join(dir, 'lanes.yaml'), 'lanes:\n  local: {}\n');
  sink = await startOtlpJsonSink();
});
after(async () => {
  killAll();
  await sink.close();
  await rm(dir, { recursive: true, force: true });
});

describe('lanewatch serve as a process', { concurrency: true }, () => {
  it('Ctrl-C (SIGINT): writes the last records and exits 0', async () => {
    const run = lanewatch(
      ['serve', '--port', '0', '--lanes', 'lanes.yaml', '--store', 'file:./sigint.json'],
      {
        cwd: dir,
        env: cleanEnv({}),
        limitMs: 30_000,
      },
    );
    await run.stdoutMatches(/listening on http:\/\//);
    run.child.kill('SIGINT');
    const done = await run.finished;
    assert.equal(done.signal, null, 'SIGINT is handled, not fatal');
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stderr, /lanewatch: SIGINT: writing the last records/);
    const doc = JSON.parse(await readFile(join(dir, 'sigint.json'), 'utf8')) as LaneHealthDocument;
    assert.equal(doc.lanes.local?.state, 'unknown');
  });

  it('own metrics carry OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, and OTEL_EXPORTER_OTLP_HEADERS, never printed', async () => {
    const HEADER = 'Bearer hdr-CANARY-61c2';
    const run = lanewatch(['serve', '--port', '0', '--lanes', 'lanes.yaml', '--interval', '0.2'], {
      cwd: dir,
      env: cleanEnv({
        LANEWATCH_STORE: 'memory:',
        LANEWATCH_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json',
        OTEL_METRIC_EXPORT_INTERVAL: '200',
        OTEL_SERVICE_NAME: 'edge-processor',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging',
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=${encodeURIComponent(HEADER)}`,
      }),
      limitMs: 30_000,
    });
    try {
      await run.stdoutMatches(/listening on http:\/\/\S+/);
      const request = await sink.waitFor((points) =>
        points.some((p) => p.metric === PROCESSOR_INSTRUMENT.laneState.name),
      );
      assert.equal(request.headers.authorization, HEADER);
      const state = request.points.find((p) => p.metric === PROCESSOR_INSTRUMENT.laneState.name);
      assert.equal(state?.resource['service.name'], 'edge-processor');
      assert.equal(state?.resource['deployment.environment.name'], 'staging');
      assert.match(String(state?.resource['service.instance.id']), new RegExp(`^${hostname()}:\\d+$`));
    } finally {
      run.child.kill('SIGTERM');
    }
    const done = await run.finished;
    assert.equal(done.code, 0, done.stderr);
    assert.ok(!`${done.stdout}${done.stderr}`.includes('hdr-CANARY'), done.stdout + done.stderr);
  });
});
