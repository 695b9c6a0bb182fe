// `npm run bench`: CPU time per streamed request (50 events) with no instrumentation, with lanewatch
// and with @opentelemetry/instrumentation-undici, at concurrency 1 and 16: first read as bare bytes
// (the lightest possible application, so the strictest ratio), then through the official openai
// client (what an application that uses it pays); then ordinary JSON POSTs, the traffic lanewatch
// must leave alone at next to no cost. Prints medians and ratios against "none" from the same run,
// with how far the individual comparisons spread; never a pass/fail.
// `lanewatch` runs as `register` runs it (finished calls recorded in batches, into its own meter);
// `lanewatch-unbatched` is the class's default, each call recorded as it ends, into the SDK's meter. `lanewatch-metrics` is lanewatch with
// `spans: false` (histograms only). `sdk-floor` records what
// lanewatch records for each request straight into the SDK (see sdk-floor.ts): the share of
// lanewatch's cost that is OpenTelemetry's; `lanewatch-no-sdk` is lanewatch with no SDK behind the
// API (its no-op tracer and meter): the rest of it, following the request and reading the stream.
//
// The ratio that matters is the steady state, measured with the modes interleaved in one long-running
// process (bench-interleaved.ts): a fresh process takes far longer to settle than V8's compiling
// suggests — uninstrumented, its CPU per request was still falling after 12 000 requests on a slow
// day, by half from the 2 000th — so fresh processes overstate every mode's cost (their ratios
// landed near the steady state's once its blocks were long enough; see bench-interleaved.ts).
// They are measured too, one mode per process, rounds in rotating order: the CPU per
// request after BENCH_WARMUP requests (what a young process pays), the CPU per warm-up request,
// and the peak RSS, which only a process of its own can show. Every mode loads the same modules
// (the SDK and both instrumentations), so the ratios are what running an instrumentation costs;
// loading is printed on its own.
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MODES, type Mode } from './bench-sdk.ts';

const run = promisify(execFile);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
// The steady state: BENCH_PROCESSES processes per workload and concurrency, each warmed up by
// BENCH_STEADY_WARMUP requests, then BENCH_CYCLES cycles of one block per mode.
// A block is BENCH_BLOCK requests when that is set, else as many as take BENCH_BLOCK_SECONDS (2) of
// wall time once warmed up (see bench-interleaved.ts: short blocks overstate every mode's cost).
// 0 skips the steady state: fresh processes only (peak RSS, which only they show).
const processes = Number(process.env.BENCH_PROCESSES ?? 2);
const cycles = Number(process.env.BENCH_CYCLES ?? 4);
const block = process.env.BENCH_BLOCK ?? `${process.env.BENCH_BLOCK_SECONDS ?? 2}s`;
const steadyWarmup = Number(process.env.BENCH_STEADY_WARMUP ?? 12000);
// Fresh processes: BENCH_ROUNDS per mode, BENCH_WARMUP requests then BENCH_REQUESTS measured.
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const warmup = Number(process.env.BENCH_WARMUP ?? 2000);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number);
// The flags the children need to load the sources: the conditions, and on a Node before 22.18
// (type stripping off by default) --experimental-strip-types. Also passed on: Node 22's
// --experimental-async-context-frame (Node 24's default), which changes what the SDK's context
// manager costs there.
const conditions = process.execArgv.filter(
  (a) =>
    a.startsWith('--conditions') ||
    a === '--experimental-strip-types' ||
    a === '--experimental-async-context-frame',
);

interface Measurement {
  cpuUsPerRequest: number;
  warmupCpuUsPerRequest: number;
  loadingCpuMs: number;
  loadingRssKiB: number;
  maxRssKiB: number;
  /** The garbage collector's pauses during the measured requests, per request. */
  gcPauseUsPerRequest: number;
}

const server: ChildProcess = fork(here('./bench-server.ts'), {
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  execArgv: conditions,
});
const [line] = (await once(server.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
const { stream: url, plain: plainUrl } = JSON.parse(line.toString()) as { stream: string; plain: string };

// The workload as undici sees it (a subscriber would change what is measured, so in its own process).
const probe = await run(process.execPath, [
  ...conditions,
  here('./bench-client.ts'),
  'probe',
  url,
  '4',
  '400',
  '100',
]);
const { chunksPerRequest } = JSON.parse(probe.stdout) as { chunksPerRequest: number };
// Node 22's bundled undici publishes no body chunks: the count cannot be taken there.
const chunks =
  chunksPerRequest > 0
    ? `${chunksPerRequest.toFixed(1)} body chunks per request`
    : `body chunks not countable (undici ${process.versions.undici} publishes no undici:request:bodyChunkReceived)`;

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[half] as number)
    : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
};
const fixed = (v: number, width: number, digits = 0) => v.toFixed(digits).padStart(width);
console.log(
  `node ${process.version}${conditions.includes('--experimental-async-context-frame') ? ' --experimental-async-context-frame' : ''}; server in its own process; ${chunks}\n` +
    `steady state: ${processes} processes, each ${steadyWarmup} warm-up requests then ${cycles} cycles of ` +
    `${block.endsWith('s') ? `a ${block} block` : `${block} requests`} per mode, modes in rotating order\n` +
    `fresh process: ${rounds} rounds per mode, ${warmup} warm-up then ${requests} measured requests\n`,
);
interface Interleaved {
  /** Requests per block. */
  block: number;
  cpu: Record<Mode, number[]>;
}

/**
 * Every mode in `modes` at one concurrency on one workload: first interleaved in `processes`
 * processes (the steady state, see bench-interleaved.ts), then `rounds` fresh processes per mode in
 * rotating order (what a process costs early on, its warm-up and its peak RSS). Prints medians and
 * ratios to none.
 */
async function measure(
  title: string,
  modes: readonly Mode[],
  target: string,
  concurrency: number,
  workload: 'stream' | 'openai-sdk' | 'plain',
): Promise<void> {
  const steady = Object.fromEntries(modes.map((mode) => [mode, [] as number[]])) as Record<Mode, number[]>;
  const blocks: number[] = [];
  for (let p = 0; p < processes; p++) {
    const { stdout } = await run(
      process.execPath,
      [
        ...conditions,
        here('./bench-interleaved.ts'),
        modes.join(','),
        target,
        String(concurrency),
        String(cycles),
        block,
        String(steadyWarmup),
        workload,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const { block: requestsPerBlock, cpu } = JSON.parse(stdout) as Interleaved;
    blocks.push(requestsPerBlock);
    for (const mode of modes) steady[mode].push(...cpu[mode]);
  }
  const results = Object.fromEntries(modes.map((mode) => [mode, [] as Measurement[]])) as Record<
    Mode,
    Measurement[]
  >;
  for (let r = 0; r < rounds; r++) {
    // Rotate the order each round so drift in the machine's load falls on every mode alike.
    const order = modes.map((_, i) => modes[(i + r) % modes.length] as Mode);
    for (const mode of order) {
      const { stdout } = await run(process.execPath, [
        ...conditions,
        here('./bench-client.ts'),
        mode,
        target,
        String(concurrency),
        String(requests),
        String(warmup),
        workload,
      ]);
      results[mode].push(JSON.parse(stdout) as Measurement);
    }
  }
  const of = (mode: Mode, key: keyof Measurement) => median(results[mode].map((m) => m[key]));
  const ratio = (mode: Mode, key: keyof Measurement) => `×${(of(mode, key) / of('none', key)).toFixed(3)}`;
  // Each round's ratio against none's run of the same round: how far one round can be trusted on
  // this machine (a run's processes differ by 10–20 % here with nothing changed).
  const spread = (mode: Mode, key: 'cpuUsPerRequest' | 'maxRssKiB' = 'cpuUsPerRequest') => {
    const ratios = results[mode].map((m, r) => m[key] / (results.none[r] as Measurement)[key]);
    return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`.padEnd(10);
  };
  // Interleaved: each cycle's block against none's block of the same cycle; the median of those
  // ratios, and their middle half (how far one cycle strays; processes differ by a few hundredths).
  const steadyRatios = (mode: Mode) =>
    steady[mode].map((v, i) => v / (steady.none[i] as number)).sort((a, b) => a - b);
  const quantile = (xs: number[], q: number) =>
    xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] as number;
  console.log(
    blocks.length > 0
      ? `${title} (steady state in blocks of ${blocks.join(', ')} requests)`
      : `${title} (fresh processes only: BENCH_PROCESSES=0)`,
  );
  console.log(
    '                       steady state: CPU/request  middle half   fresh process: CPU/request  rounds       GC pauses        warm-up: CPU/request      peak RSS                 rounds',
  );
  for (const mode of modes) {
    const ratios = steadyRatios(mode);
    const steadyColumns =
      ratios.length === 0
        ? `${'–'.padStart(9)}     ${'–'.padEnd(6)}  ${'–'.padEnd(10)}`
        : `${fixed(median(steady[mode]), 6)} µs  ×${median(ratios).toFixed(3)}  ` +
          `${`${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}`.padEnd(10)}`;
    console.log(
      `  ${mode.padEnd(19)}  ${steadyColumns}` +
        `   ${fixed(of(mode, 'cpuUsPerRequest'), 6)} µs  ${ratio(mode, 'cpuUsPerRequest')}  ${spread(mode)}` +
        // The garbage collector's pauses beside the CPU they are part of: whether a mode costs more
        // by making more garbage, or by running more code.
        `   ${fixed(of(mode, 'gcPauseUsPerRequest'), 5, 1)} µs paused` +
        `   ${fixed(of(mode, 'warmupCpuUsPerRequest'), 6)} µs  ${ratio(mode, 'warmupCpuUsPerRequest')}` +
        `     ${fixed(of(mode, 'maxRssKiB') / 1024, 6, 1)} MiB  ${ratio(mode, 'maxRssKiB')}  ${spread(mode, 'maxRssKiB')}`,
    );
  }
  const loading = results.none;
  console.log(
    `  loading OpenTelemetry and both instrumentations (every mode, not in the ratios): ` +
      `${fixed(median(loading.map((m) => m.loadingCpuMs)), 0)} ms CPU, ` +
      `+${fixed(median(loading.map((m) => m.loadingRssKiB)) / 1024, 0, 1)} MiB RSS`,
  );
}

for (const concurrency of concurrencies) {
  await measure(`concurrency ${concurrency}`, MODES, url, concurrency, 'stream');
}
// The same calls made the way applications make them: through the official openai client, whose
// own work (building the request, parsing every event into an object) is part of what a request
// costs its process. Every mode, as bare: `lanewatch-metrics` beside `lanewatch` is what the span
// costs such an application.
for (const concurrency of concurrencies) {
  await measure(
    `through the openai client, concurrency ${concurrency}`,
    MODES,
    url,
    concurrency,
    'openai-sdk',
  );
}
// What lanewatch costs the rest of the process's HTTP traffic: JSON POSTs to an ordinary API.
await measure(
  'non-LLM requests (JSON POST, JSON answer), concurrency 1',
  ['none', 'lanewatch', 'otel-undici'],
  plainUrl,
  1,
  'plain',
);
server.disconnect();
