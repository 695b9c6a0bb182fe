// `npm run bench`: CPU time per streamed request (50 events) with no instrumentation, with lanewatch
// and with @opentelemetry/instrumentation-undici, interleaved round by round in fresh processes, at
// concurrency 1 and 16. Prints medians and ratios against "none" from the same run; never a pass/fail.
import { type ChildProcess, execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const requests = Number(process.env.BENCH_REQUESTS ?? 400);
const MODES = ['none', 'lanewatch', 'otel-undici'] as const;
type Mode = (typeof MODES)[number];
const conditions = process.execArgv.filter((a) => a.startsWith('--conditions'));

const server: ChildProcess = fork(here('./bench-server.ts'), {
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  execArgv: conditions,
});
const [line] = (await once(server.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
const url = line.toString().trim();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(
  `node ${process.version}, ${rounds} rounds × ${requests} requests per mode, server in its own process\n`,
);
for (const concurrency of [1, 16]) {
  const cpu: Record<Mode, number[]> = { none: [], lanewatch: [], 'otel-undici': [] };
  const rss: Record<Mode, number[]> = { none: [], lanewatch: [], 'otel-undici': [] };
  for (let r = 0; r < rounds; r++) {
    // Rotate the order each round so drift in the machine's load falls on every mode alike.
    const order = MODES.map((_, i) => MODES[(i + r) % MODES.length] as Mode);
    for (const mode of order) {
      const { stdout } = await run(process.execPath, [
        ...conditions,
        here('./bench-client.ts'),
        mode,
        url,
        String(concurrency),
        String(requests),
      ]);
      const result = JSON.parse(stdout) as { cpuUsPerRequest: number; maxRssKiB: number };
      cpu[mode].push(result.cpuUsPerRequest);
      rss[mode].push(result.maxRssKiB);
    }
  }
  const base = median(cpu.none);
  const baseRss = median(rss.none);
  console.log(`concurrency ${concurrency}`);
  for (const mode of MODES) {
    console.log(
      `  ${mode.padEnd(12)} CPU ${median(cpu[mode]).toFixed(0).padStart(5)} µs/request  ×${(median(cpu[mode]) / base).toFixed(3)}` +
        `   peak RSS ${(median(rss[mode]) / 1024).toFixed(1)} MiB  ×${(median(rss[mode]) / baseRss).toFixed(3)}`,
    );
  }
}
server.disconnect();
