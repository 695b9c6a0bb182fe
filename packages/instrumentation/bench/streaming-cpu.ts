// `npm run bench`: CPU time per streamed request (50 events) with no instrumentation, with lanewatch
// and with @opentelemetry/instrumentation-undici, interleaved round by round in fresh processes, at
// concurrency 1 and 16: first read as bare bytes (the lightest possible application, so the
// strictest ratio), then through the official openai client (what an application that uses it
// pays); then ordinary JSON POSTs, the traffic lanewatch must leave alone at next to no cost.
// Prints medians and ratios against "none" from the same run, and the range of the rounds' own
// ratios; never a pass/fail.
// `lanewatch` runs as `register` runs it (finished calls recorded in batches); `lanewatch-unbatched`
// is the class's default, each call recorded as it ends. `lanewatch-metrics` is lanewatch with
// `spans: false` (histograms only). `sdk-floor` records what
// lanewatch records for each request straight into the SDK (see sdk-floor.ts): the share of
// lanewatch's cost that is OpenTelemetry's; `lanewatch-no-sdk` is lanewatch with no SDK behind the
// API (its no-op tracer and meter): the rest of it, following the request and reading the stream.
//
// The ratio that matters is the steady state: a process that has made BENCH_WARMUP requests (default
// 2000), measured over the next BENCH_REQUESTS (default 2000). Before that, V8 is still compiling
// Node's fetch, the SDK and the instrumentation: uninstrumented, a request costs 3–4 times its
// steady-state CPU over the first few hundred requests and takes ~1500 to settle. That warm-up is
// printed too, as the CPU per warm-up request. Every mode loads the same modules (the SDK and both
// instrumentations), so the ratios are what running an instrumentation costs; loading is printed
// on its own.
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MODES, type Mode } from './bench-sdk.ts';

const run = promisify(execFile);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const warmup = Number(process.env.BENCH_WARMUP ?? 2000);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number);
// The flags the children need to load the sources: the conditions, and on a Node before 22.18
// (type stripping off by default) --experimental-strip-types.
const conditions = process.execArgv.filter(
  (a) => a.startsWith('--conditions') || a === '--experimental-strip-types',
);

interface Measurement {
  cpuUsPerRequest: number;
  warmupCpuUsPerRequest: number;
  loadingCpuMs: number;
  loadingRssKiB: number;
  maxRssKiB: number;
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

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fixed = (v: number, width: number, digits = 0) => v.toFixed(digits).padStart(width);
console.log(
  `node ${process.version}, ${rounds} rounds per mode: ${warmup} warm-up then ${requests} measured requests ` +
    `in a fresh process each, server in its own process; ${chunks}\n`,
);
/** Every mode in `modes`, `rounds` times each in rotating order; prints medians and ratios to none. */
async function measure(
  title: string,
  modes: readonly Mode[],
  target: string,
  concurrency: number,
  workload: 'stream' | 'openai-sdk' | 'plain',
): Promise<void> {
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
  console.log(title);
  console.log(
    '                       steady state: CPU/request  rounds       warm-up: CPU/request      peak RSS                 rounds',
  );
  for (const mode of modes) {
    console.log(
      `  ${mode.padEnd(19)}  ${fixed(of(mode, 'cpuUsPerRequest'), 6)} µs  ${ratio(mode, 'cpuUsPerRequest')}  ${spread(mode)}` +
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
// costs its process.
for (const concurrency of concurrencies) {
  await measure(
    `through the openai client, concurrency ${concurrency}`,
    ['none', 'lanewatch', 'lanewatch-unbatched', 'lanewatch-no-sdk', 'otel-undici', 'sdk-floor'],
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
