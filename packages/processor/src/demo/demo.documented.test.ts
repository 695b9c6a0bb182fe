import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../cli/run-cli.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { killAll, lanewatch } from '../probe/cli-process.test-helper.ts';
import type { LaneHealthDocument } from '../store/file-store.ts';
import { freePort } from '../wait.test-helper.ts';
import { DEMO_LANES } from './demo-lanes.ts';
import type { DemoResult } from './demo-result.ts';

// `lanewatch demo`'s options table and its refusals: bad values, and an --out directory that holds a
// real store. The refusals run in this process (they come before any lane starts); the options'
// effects in a short real run.

let scratch: string;

/**
 * `lanewatch demo` in this process, writing to a scratch directory unless told otherwise. A demo that
 * starts instead of refusing is stopped after 2 s (and then exits 0).
 */
async function demo(args: readonly string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['demo', ...args], {
    env: { LANEWATCH_DEMO_OUT: scratch, ...env },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stopRequested: new Promise((resolve) => setTimeout(resolve, 2000, 'SIGTERM').unref()),
  });
  return { code, out: out.join(''), err: err.join('') };
}

const dirs: string[] = [];
async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `demo-documented-${name}-`));
  dirs.push(dir);
  return dir;
}
before(async () => {
  scratch = await tempDir('scratch');
});
after(async () => {
  killAll();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('lanewatch demo, as its README documents it', { concurrency: true }, () => {
  it('a bad option or variable exits 2, saying which one and what it must be', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ['--time-scale', '20'],
        {},
        /^lanewatch demo: --time-scale must be a factor from 0\.05 to 10, got "20"\n$/,
      ],
      [
        [],
        { LANEWATCH_DEMO_TIME_SCALE: '0.01' },
        /^lanewatch demo: LANEWATCH_DEMO_TIME_SCALE must be a factor/,
      ],
      [
        [],
        { LANEWATCH_DEMO_RATE: '0' },
        /^lanewatch demo: LANEWATCH_DEMO_RATE must be calls per second from 0\.1/,
      ],
      [['--jobs', 'many'], {}, /^lanewatch demo: --jobs must be jobs per second from 0 to 100, got "many"/],
      // A negative number is a value out of range, not a missing one.
      [['--jobs', '-1'], {}, /^lanewatch demo: --jobs must be jobs per second from 0 to 100, got "-1"\n$/],
      [
        ['--rate', '-0.5'],
        {},
        /^lanewatch demo: --rate must be calls per second from 0\.1 to 100, got "-0\.5"\n$/,
      ],
      [
        ['--duration', '-3'],
        {},
        /^lanewatch demo: --duration must be a number of seconds above 0, got "-3"\n$/,
      ],
      [['--duration', '0'], {}, /^lanewatch demo: --duration must be a number of seconds above 0/],
      [
        [],
        { LANEWATCH_MIN_SAMPLES: '0' },
        /^lanewatch demo: LANEWATCH_MIN_SAMPLES must be a whole number, at least 1/,
      ],
      [['--port', '70000'], {}, /^lanewatch demo: --port must be a port number from 0 to 65535/],
      [['--json=yes'], {}, /^lanewatch demo: --json takes no value/],
      [['--rat', '3'], {}, /^lanewatch demo: unknown option "--rat"; see lanewatch demo --help/],
    ];
    for (const [args, env, message] of cases) {
      const run = await demo(args, env);
      assert.equal(run.code, 2, `${args.join(' ')} ${JSON.stringify(env)}`);
      assert.match(run.err, message);
      assert.equal(run.out, '');
    }
  });

  it('an --out directory whose lane-health.json holds other lanes is refused with exit 2, and the file is left as it was', async () => {
    const dir = await tempDir('foreign');
    const path = join(dir, 'lane-health.json');
    const real = JSON.stringify({
      schema: 'lanewatch.lane-health/v1',
      written_at: '2026-11-30T08:00:00.000Z',
      lanes: {},
    });
    const withLanes = real.replace(
      '"lanes":{}',
      '"lanes":{"prod-fast":{"lane":"prod-fast"},"steady":{"lane":"steady"}}',
    );
    await writeFile(path, withLanes);
    const run = await demo(['--out', dir]);
    assert.equal(run.code, 2);
    assert.match(
      run.err,
      /lane-health\.json holds lanes that are not the demo's \(prod-fast\); run the demo with --out DIR elsewhere/,
    );
    assert.equal(await readFile(path, 'utf8'), withLanes);
    assert.deepEqual(await readdir(dir), ['lane-health.json'], 'no report written either');

    await writeFile(path, 'not a lane-health file');
    const garbage = await demo([], { LANEWATCH_DEMO_OUT: dir });
    assert.equal(garbage.code, 2);
    assert.match(
      garbage.err,
      /lane-health\.json exists and is not a lane-health file; choose another --out directory/,
    );
    assert.equal(await readFile(path, 'utf8'), 'not a lane-health file');
  });

  it('an --out that is a file, or under one, exits 2 saying it must be a directory', async () => {
    const dir = await tempDir('file');
    const file = join(dir, 'results');
    await writeFile(file, 'a file the user keeps');
    const flag = await demo(['--out', file]);
    assert.equal(flag.code, 2, flag.err);
    assert.equal(flag.err, `lanewatch demo: --out must be a directory; ${file} is a file\n`);
    assert.equal(flag.out, '');
    const variable = await demo([], { LANEWATCH_DEMO_OUT: join(file, 'sub') });
    assert.equal(variable.code, 2, variable.err);
    assert.equal(
      variable.err,
      `lanewatch demo: LANEWATCH_DEMO_OUT must be a directory; ${join(file, 'sub')} has a file in its path\n`,
    );
    assert.equal(await readFile(file, 'utf8'), 'a file the user keeps');
  });

  it('--port, --out, --time-scale and LANEWATCH_MIN_SAMPLES: the processor answers on that port while it runs, files go to --out, times are scaled', async () => {
    const cwd = await tempDir('cwd');
    const out = join(await tempDir('out'), 'nested');
    const port = await freePort();
    const run = lanewatch(
      ['demo', '--duration', '2', '--json', '--out', out, '--port', String(port), '--time-scale', '0.05'],
      {
        cwd,
        env: { LANEWATCH_MIN_SAMPLES: '5' },
        limitMs: 60_000,
      },
    );
    let served: { lanes: LaneHealth[] } | undefined;
    const deadline = Date.now() + 20_000;
    while (served === undefined && Date.now() < deadline) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/lanes`).catch(() => undefined);
      const body = response?.ok ? ((await response.json()) as { lanes: LaneHealth[] }) : undefined;
      if (body && body.lanes.length === DEMO_LANES.length) served = body;
      else await sleep(50);
    }
    const done = await run.finished;
    assert.equal(done.code, 0, done.stderr);
    assert.ok(served, `GET /v1/lanes on port ${port} while the demo ran`);
    assert.deepEqual(served.lanes.map((l) => l.lane).sort(), DEMO_LANES.map((l) => l.lane).sort());

    const result = JSON.parse(done.stdout) as DemoResult;
    assert.equal(result.time_scale, 0.05);
    assert.equal(result.processor.url, `http://127.0.0.1:${port}`);
    assert.equal(result.processor.min_samples, 5);
    assert.deepEqual((await readdir(out)).sort(), ['lane-health.json', 'lanewatch-report.html']);
    assert.deepEqual(await readdir(cwd), [], 'nothing written to the working directory');
    const doc = JSON.parse(await readFile(join(out, 'lane-health.json'), 'utf8')) as LaneHealthDocument;
    for (const lane of DEMO_LANES) {
      const record = doc.lanes[lane.lane];
      assert.equal(record?.min_samples, 5, lane.lane);
      // Handoffs are scaled with every simulated duration.
      assert.equal(
        record?.scorecard.handoff_s,
        Number((lane.scorecard.handoff_s * 0.05).toPrecision(3)),
        lane.lane,
      );
    }
  });
});
