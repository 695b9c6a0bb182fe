// One measurement: requests at concurrency C under one instrumentation mode, in a fresh process —
// by the last argument, the streamed chat workload read as bare bytes (`stream`), the same stream
// asked for and read through the official openai client (`openai-sdk`), or the non-LLM JSON POSTs
// (`plain`). First W warm-up requests — V8 compiles Node's fetch, the SDK and the instrumentation
// while they run — then N measured ones. Prints, as JSON: CPU microseconds per measured request (a
// young process's cost: see bench-interleaved.ts for the steady state) and per warm-up request, the CPU and RSS that loading the SDK and the
// instrumentations took, and the process's peak RSS.
import { cpuMicros, requestRunner, type Workload } from './bench-requests.ts';
import type { Mode } from './bench-sdk.ts';

const [mode = 'none', url = '', c = '1', n = '2000', w = '2000', workload = 'stream'] = process.argv.slice(2);
const concurrency = Number(c);
const requests = Number(n);
const warmup = Number(w);

// Node loads its bundled undici when `fetch` is first read: in every mode alike, before anything.
void globalThis.fetch;
// Every mode loads the same modules, so the ratios are the cost of running an instrumentation; what
// loading OpenTelemetry and the instrumentations costs is measured here and reported on its own.
const beforeLoading = process.cpuUsage();
const rssBeforeLoading = process.memoryUsage().rss;
const sdk = await import('./bench-sdk.ts');
const loadingCpuMs = cpuMicros(beforeLoading) / 1000;
const loadingRssKiB = (process.memoryUsage().rss - rssBeforeLoading) / 1024;
// `probe` checks the workload instead: how many body chunks undici hands over per request.
let chunks = 0;
if (mode === 'probe') {
  (await import('node:diagnostics_channel')).subscribe('undici:request:bodyChunkReceived', () => {
    chunks += 1;
  });
} else if (mode !== 'none') sdk.instrument(mode as Exclude<Mode, 'none'>);

const run = await requestRunner(url, workload as Workload, concurrency);

const beforeWarmup = process.cpuUsage();
await run(warmup);
const warmupCpu = cpuMicros(beforeWarmup);
chunks = 0;
let gcPauseMs = 0;
let collections = 0;
const gc = new PerformanceObserver((entries) => {
  for (const entry of entries.getEntries()) {
    gcPauseMs += entry.duration;
    collections += 1;
  }
});
gc.observe({ entryTypes: ['gc'] });
const before = process.cpuUsage();
await run(requests);
const cpu = cpuMicros(before);
// Entries are delivered after the collection that made them: the last ones before this turn ends.
await new Promise((resolve) => setImmediate(resolve));
gc.disconnect();
process.stdout.write(
  `${JSON.stringify({
    mode,
    concurrency,
    cpuUsPerRequest: cpu / requests,
    warmupCpuUsPerRequest: warmupCpu / warmup,
    loadingCpuMs,
    loadingRssKiB,
    maxRssKiB: process.resourceUsage().maxRSS,
    chunksPerRequest: chunks / requests,
    gcPauseUsPerRequest: (gcPauseMs * 1000) / requests,
    collectionsPerThousandRequests: (collections * 1000) / requests,
  })}\n`,
);
process.exit(0);
