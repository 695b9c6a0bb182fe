import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LANE_STATES } from '../evaluation/lane-health.ts';
import { validateLaneHealth } from '../evaluation/lane-health-schema.test-helper.ts';
import { killAll, lanewatch } from '../probe/cli-process.test-helper.ts';
import { DEMO_LANES } from './demo-lanes.ts';
import type { DemoResult } from './demo-result.ts';

// `lanewatch demo` as a user runs it: a real process, real ports, its output and files read back.

/** Content the simulated lanes send or the demo asks, which must reach no output and no file. */
const CONTENT = [' answers within', 'Consider the question', 'order_id', 'Return the word ready'];

function assertNoContent(text: string, where: string): void {
  for (const canary of CONTENT) assert.ok(!text.includes(canary), `"${canary}" in ${where}`);
}

const dirs: string[] = [];
before(async () => {
  dirs.push(await mkdtemp(join(tmpdir(), 'demo-json-')), await mkdtemp(join(tmpdir(), 'demo-pipe-')));
});
after(async () => {
  killAll();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('lanewatch demo', { concurrency: true, timeout: 90_000 }, () => {
  it('--duration --json: one JSON document; steady and spiky alike on average, apart at p95; admit at work', async () => {
    const dir = dirs[0] as string;
    const done = await lanewatch(['demo', '--duration', '24', '--json', '--rate', '6', '--jobs', '4'], {
      cwd: dir,
    }).finished;
    assert.equal(done.code, 0, done.stderr);
    const result = JSON.parse(done.stdout) as DemoResult; // the whole of stdout is one document
    assert.equal(result.schema, 'lanewatch.demo/v1');
    assert.equal(result.stopped_by, 'duration');
    assert.deepEqual(
      result.lanes.map((l) => l.lane),
      DEMO_LANES.map((l) => l.lane),
    );
    const lane = (name: string) => result.lanes.find((l) => l.lane === name) as DemoResult['lanes'][number];
    for (const l of result.lanes) {
      assert.ok((LANE_STATES as readonly string[]).includes(l.state), `${l.lane}: ${l.state}`);
      assert.ok(l.samples >= l.min_samples, `${l.lane} warmed up: ${l.samples} samples`);
    }
    const steady = lane('steady');
    const spiky = lane('spiky');
    assert.equal(steady.state, 'healthy');
    for (const key of [
      'time_to_headers',
      'time_to_first_chunk',
      'time_to_first_output',
      'time_to_first_text',
      'duration',
    ]) {
      const q = steady.quantiles[key];
      assert.ok(q && q.p50 > 0 && q.p50 <= q.p95 && q.p95 <= q.p99, `steady ${key}`);
    }
    const [steadyP95, spikyP95] = [
      steady.quantiles.time_to_first_text?.p95 ?? 0,
      spiky.quantiles.time_to_first_text?.p95 ?? 0,
    ];
    const [steadyMean, spikyMean] = [
      steady.means.time_to_first_text ?? 0,
      spiky.means.time_to_first_text ?? 0,
    ];
    assert.ok(spikyP95 > 1.8 * steadyP95, `p95 first_text: spiky ${spikyP95} s, steady ${steadyP95} s`);
    assert.ok(
      Math.abs(spikyMean - steadyMean) < 0.3 * steadyMean,
      `means: spiky ${spikyMean}, steady ${steadyMean}`,
    );
    const ranking = result.ranking_by_first_text_cost;
    assert.ok(ranking.indexOf('steady') < ranking.indexOf('spiky'), ranking.join(' < '));
    assert.ok(steady.expected_cost_s !== null && steady.cutoffs.total_s !== null);

    const limited = lane('rate-limited');
    assert.equal(limited.state, 'saturated');
    assert.ok((limited.rates?.rate_limited ?? 0) > 0.05);
    assert.equal(limited.hedge.allowed, false);
    const thinker = lane('thinker');
    assert.ok(
      (thinker.quantiles.time_to_first_output?.p95 ?? 9) < (thinker.quantiles.time_to_first_text?.p50 ?? 0),
    );

    assert.ok(result.jobs.admitted > 0 && result.jobs.refused > 0, JSON.stringify(result.jobs));
    assert.equal(result.jobs.total, result.jobs.admitted + result.jobs.refused);
    assert.equal(
      result.lanes.reduce((s, l) => s + l.admitted, 0),
      result.jobs.admitted,
    );
    assert.equal(lane('rate-limited').passed_over.saturated !== undefined, true);

    const health = JSON.parse(await readFile(join(dir, 'lane-health.json'), 'utf8')) as {
      schema: string;
      lanes: Record<string, unknown>;
    };
    assert.equal(health.schema, 'lanewatch.lane-health/v1');
    assert.deepEqual(Object.keys(health.lanes).sort(), DEMO_LANES.map((l) => l.lane).sort());
    for (const [name, record] of Object.entries(health.lanes)) {
      assert.ok(validateLaneHealth(record), `${name}: ${JSON.stringify(validateLaneHealth.errors)}`);
    }
    const report = await readFile(join(dir, 'lanewatch-report.html'), 'utf8');
    for (const l of DEMO_LANES) assert.ok(report.includes(`id="lane-${l.lane}"`), l.lane);
    assertNoContent(done.stdout + done.stderr, 'the output');
    assertNoContent(report, 'the report');
    assertNoContent(JSON.stringify(health), 'lane-health.json');
  });

  it('piped: plain periodic lines; Ctrl-C (SIGINT) exits 0 and leaves lane-health.json', async () => {
    const dir = dirs[1] as string;
    // --duration only as a backstop: SIGINT comes long before it.
    const run = lanewatch(['demo', '--rate', '3', '--jobs', '1', '--duration', '90'], { cwd: dir });
    await run.stdoutMatches(/^\[0:0[5-9]\] jobs/m);
    run.child.kill('SIGINT');
    const done = await run.finished;
    assert.equal(done.code, 0, done.stderr);
    assert.ok(!done.stdout.includes('\x1b'), 'no terminal escapes in a pipe');
    const lines = done.stdout.trim().split('\n');
    assert.match(
      lines[0] as string,
      /^lanewatch demo: 6 simulated lanes, time scale 0\.5; processor http:\/\/127\.0\.0\.1:\d+/,
    );
    const board = lines.filter((l) => /^\[\d+:\d\d\] /.test(l));
    for (const l of DEMO_LANES) {
      assert.ok(
        board.some((line) => line.startsWith(`[0:00] ${l.lane} `)),
        `first block shows ${l.lane}`,
      );
    }
    assert.ok(
      board.some((line) => /^\[0:0\d\] steady .* samples \d+ \| p50\/p95\/p99 s headers /.test(line)),
    );
    assert.match(done.stdout, /wrote .*lane-health\.json/);
    const health = JSON.parse(await readFile(join(dir, 'lane-health.json'), 'utf8')) as { lanes: object };
    assert.equal(Object.keys(health.lanes).length, DEMO_LANES.length);
    assertNoContent(done.stdout + done.stderr, 'the output');
  });
});
