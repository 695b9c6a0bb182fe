// `npm run bench` is not a test (its ratios depend on the machine), but it must keep running: a
// short run of it, every mode at two concurrencies, printing the table a user reads.
import assert from 'node:assert/strict';
import { execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundledUndiciPublishesChunks } from './instrumentation.ts';

const run = promisify(execFile);
// How this process loads TypeScript (on a Node before 22.18 type stripping is behind a flag).
const loader = [
  ...process.execArgv.filter((a) => a === '--experimental-strip-types'),
  '--conditions=lanewatch-source',
];
const bench = fileURLToPath(new URL('../bench/streaming-cpu.ts', import.meta.url));
const cost = fileURLToPath(new URL('../bench/instrumentation-cost.ts', import.meta.url));
const spanMemory = fileURLToPath(new URL('../bench/span-memory.ts', import.meta.url));

describe('npm run bench', () => {
  it('measures every mode at each concurrency against none, on the documented 50-event workload read bare and through the openai client, and on non-LLM POSTs', async () => {
    const { stdout } = await run(process.execPath, [...loader, bench], {
      env: {
        ...process.env,
        BENCH_ROUNDS: '1',
        BENCH_REQUESTS: '30',
        BENCH_WARMUP: '30',
        BENCH_PROCESSES: '1',
        BENCH_CYCLES: '2',
        BENCH_BLOCK: '10',
        BENCH_STEADY_WARMUP: '40',
        BENCH_CONCURRENCY: '1,4',
      },
      timeout: 240_000,
    });
    // Node 22's undici cannot count body chunks; the table is the same.
    if (bundledUndiciPublishesChunks()) assert.match(stdout, /50\.0 body chunks per request/);
    else assert.match(stdout, /body chunks not countable/);
    // Every mode on the streamed call, read bare and through the openai client alike.
    const { MODES: every } = await import('../bench/bench-sdk.ts');
    const sections: Array<[string, readonly string[]]> = [
      ['concurrency 1', every],
      ['concurrency 4', every],
      ['through the openai client, concurrency 1', every],
      ['through the openai client, concurrency 4', every],
      ['non-LLM requests (JSON POST, JSON answer), concurrency 1', ['none', 'lanewatch', 'otel-undici']],
    ];
    for (const [title, modes] of sections) {
      // BENCH_BLOCK sets a block's requests, and each section says what its blocks were.
      const section =
        stdout
          .split(`${title} (steady state in blocks of 10 requests)\n`)[1]
          ?.split('loading OpenTelemetry')[0] ?? '';
      for (const mode of modes) {
        const row = section.split('\n').find((line) => line.trim().split(/\s+/)[0] === mode);
        assert.ok(row, `a row for ${mode} under "${title}":\n${stdout}`);
        // The steady state (modes interleaved in one process: the middle half of its cycles' ratios),
        // then a fresh process (the rounds' range).
        const cpuColumns = [...row.matchAll(/([\d.]+) µs\s+×([\d.]+)\s+([\d.]+)–([\d.]+)/g)].map((m) =>
          m.slice(1).map(Number),
        );
        assert.equal(cpuColumns.length, 2, `${mode}: steady-state and fresh-process CPU (${row})`);
        for (const [cpu, ratio, low, high] of cpuColumns) {
          assert.ok(cpu !== undefined && cpu > 0, `${mode}: CPU per request measured (${row})`);
          assert.ok(ratio !== undefined && ratio > 0, `${mode}: a ratio against none (${row})`);
          assert.ok(low !== undefined && high !== undefined && low <= high, `${mode}: the spread (${row})`);
          if (mode === 'none') assert.deepEqual([ratio, low, high], [1, 1, 1]);
        }
        // The garbage collector's pauses in a fresh process, part of its CPU per request.
        const paused = Number(/([\d.]+) µs paused/.exec(row)?.[1]);
        const freshCpu = cpuColumns[1]?.[0] as number;
        assert.ok(paused >= 0 && paused <= freshCpu, `${mode}: GC pauses within the CPU (${row})`);
        // Peak RSS: the median's ratio and the rounds' own range beside it.
        const [rss, rssRatio, rssLow, rssHigh] =
          /([\d.]+) MiB\s+×([\d.]+)\s+([\d.]+)–([\d.]+)/.exec(row)?.slice(1).map(Number) ?? [];
        assert.ok(rss !== undefined && rss > 0, `${mode}: peak RSS measured (${row})`);
        assert.ok(
          rssRatio !== undefined && rssLow !== undefined && rssHigh !== undefined && rssLow <= rssHigh,
          `${mode}: peak RSS ratio and the rounds' range (${row})`,
        );
        if (mode === 'none') assert.deepEqual([rssRatio, rssLow, rssHigh], [1, 1, 1]);
      }
    }
  });

  it("bench/instrumentation-cost.ts splits one call into lanewatch's SDK share, the detector and the rest, beside the SDK floor", async () => {
    const { stdout } = await run(process.execPath, [...loader, cost, '1'], {
      timeout: 240_000,
    });
    const microsOf = (part: string) => Number(new RegExp(`${part}[^\\n]*?(-?[\\d.]+) µs`).exec(stdout)?.[1]);
    for (const part of [
      'lanewatch, one request in isolation',
      'the SDK: span \\+ 8 records, as lanewatch',
      'detector: 50 events',
      'sdk floor: span \\+ 8 records, plainly',
    ]) {
      assert.ok(microsOf(part) > 0, `${part}: measured in µs\n${stdout}`);
    }
    // The rest is what the whole leaves over its measured parts: a difference of timings, which
    // one short round on a busy machine can leave at zero or below. Printed, whatever its sign.
    assert.ok(Number.isFinite(microsOf('the rest')), `the rest: printed in µs\n${stdout}`);
  });
});

describe('npm run bench:span-memory', () => {
  // Heap bytes, not time: what a span waiting in a batch span processor keeps alive.
  it("prints what a finished span holds until it is exported, lanewatch's against the SDK's, and lanewatch's holds less", async () => {
    const { stdout } = await run(process.execPath, [...loader, '--expose-gc', spanMemory], {
      timeout: 120_000,
    });
    const row = (name: string) => {
      const m = new RegExp(`^${name}\\s+(\\d+)\\s+([\\d.]+) \\|\\s+(\\d+)\\s+([\\d.]+)$`, 'm').exec(stdout);
      assert.ok(m, `a row for ${name}:\n${stdout}`);
      return { waiting: Number(m[1]), ratio: Number(m[2]), read: Number(m[3]) };
    };
    const sdk = row('SDK tracer');
    const own = row('lanewatch \\(OwnTracer\\)');
    assert.ok(sdk.waiting > 1000, `an SDK span with 22 attributes and 5 events is over 1 kB: ${sdk.waiting}`);
    // Built when read: smaller while waiting, about the SDK's once an exporter has read it.
    assert.ok(
      own.waiting < sdk.waiting / 2,
      `lanewatch's waiting span (${own.waiting} B) is under half the SDK's (${sdk.waiting} B)`,
    );
    assert.ok(own.read > own.waiting, 'reading it builds its attributes and events');
    // The ratio printed is the two sizes' (each rounded to a byte, the ratio to two places).
    assert.ok(
      Math.abs(own.ratio - own.waiting / sdk.waiting) < 0.006,
      `×${own.ratio} is its bytes over the SDK's`,
    );
  });
});

describe('npm run bench with BENCH_PROCESSES=0', () => {
  it('skips the steady state and still prints every mode in fresh processes, peak RSS with it', async () => {
    const { stdout } = await run(process.execPath, [...loader, bench], {
      env: {
        ...process.env,
        BENCH_PROCESSES: '0',
        BENCH_ROUNDS: '1',
        BENCH_REQUESTS: '20',
        BENCH_WARMUP: '20',
        BENCH_CONCURRENCY: '2',
      },
      timeout: 240_000,
    });
    const section =
      stdout.split('concurrency 2 (fresh processes only: BENCH_PROCESSES=0)\n')[1]?.split('loading')[0] ?? '';
    for (const mode of ['none', 'lanewatch', 'sdk-floor']) {
      const row = section.split('\n').find((line) => line.trim().split(/\s+/)[0] === mode);
      assert.ok(row, `a row for ${mode}:\n${stdout}`);
      assert.match(row, new RegExp(`^\\s+${mode}\\s+–\\s+–\\s+–\\s+[\\d.]+ µs\\s+×[\\d.]+`), row);
      assert.match(row, /[\d.]+ MiB\s+×[\d.]+/, `${mode}: peak RSS (${row})`);
    }
  });
});

describe('the interleaved benchmark', () => {
  it('sizes its blocks by the seconds asked for, from the warm-up: ten times as long, several times the requests', async () => {
    const server = fork(fileURLToPath(new URL('../bench/bench-server.ts', import.meta.url)), {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      execArgv: loader,
    });
    try {
      const [line] = (await once(server.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
      const { stream: url } = JSON.parse(line.toString()) as { stream: string };
      const interleaved = fileURLToPath(new URL('../bench/bench-interleaved.ts', import.meta.url));
      const blockOf = async (seconds: string) => {
        const { stdout } = await run(
          process.execPath,
          [...loader, interleaved, 'none,lanewatch', url, '4', '1', seconds, '400', 'stream'],
          { timeout: 120_000 },
        );
        const { block, cpu } = JSON.parse(stdout) as { block: number; cpu: Record<string, number[]> };
        assert.equal(cpu.lanewatch?.length, 1, 'one cycle measured');
        assert.ok(Number.isInteger(block / 100) && block >= 100, `a block of whole hundreds (${block})`);
        return block;
      };
      // Blocks are at least 100 requests: short ones long enough to be above that floor on a loaded
      // machine (0.05 s were not, at 400 requests a second), so the ratio is the seconds'.
      const short = await blockOf('0.2s');
      const long = await blockOf('2s');
      assert.ok(long >= 3 * short, `2 s blocks (${long} requests) against 0.2 s ones (${short})`);
    } finally {
      server.disconnect();
    }
  });

  it('starts and stops each mode in one process: on, it follows undici; off, nothing listens', async () => {
    const diagnosticsChannel = await import('node:diagnostics_channel');
    const { MODES, modeToggles } = await import('../bench/bench-sdk.ts');
    const listening = () =>
      ['create', 'headers', 'trailers', 'error', 'bodyChunkReceived'].filter(
        (name) => diagnosticsChannel.channel(`undici:request:${name}`).hasSubscribers,
      );
    // Whether a context manager carries context through a call: the SDK modes run with one, as
    // they do alone; `none` and `lanewatch-no-sdk` without, as they do alone.
    const { context, createContextKey, ROOT_CONTEXT } = await import('@opentelemetry/api');
    const probe = ROOT_CONTEXT.setValue(createContextKey('bench probe'), 1);
    const carried = () => context.with(probe, () => context.active()) === probe;
    const toggles = modeToggles(MODES);
    for (const mode of MODES) {
      toggles[mode].on();
      const on = listening();
      assert.equal(carried(), mode !== 'none' && mode !== 'lanewatch-no-sdk', `${mode}: context manager`);
      toggles[mode].off();
      assert.equal(carried(), false, `${mode} off: no context manager`);
      if (mode === 'none') assert.deepEqual(on, [], 'none listens to nothing');
      else if (mode === 'sdk-floor') assert.deepEqual(on, ['trailers'], 'sdk-floor records at each end');
      else assert.ok(on.includes('create') && on.includes('trailers'), `${mode} follows requests: ${on}`);
      assert.deepEqual(listening(), [], `${mode} off: nothing listens`);
    }
  });
});
