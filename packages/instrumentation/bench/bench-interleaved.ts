// The steady-state measurement: every mode in one process, taking turns. A fresh process is not in
// its steady state after a few thousand requests — on a slow day its uninstrumented CPU per request
// was still falling after 12 000, by half from the 2 000th (user and system time alike; not the
// workload, whose body still came in 50 chunks, nor the young generation's size, which a fixed one
// did not change) — and processes differ from one start to the next by 10–20 % on this machine. Here one long
// warm-up (every mode in turn, so all of their code is compiled) is followed by cycles in which each
// mode makes one block of requests, in an order that rotates from cycle to cycle; each mode's block
// is compared with `none`'s block of the same cycle, seconds apart in the same process.
//
// A block must be long: switching a mode on or off subscribes or unsubscribes diagnostics channels
// and swaps the context manager, and the code that ran before has to be optimized again. Blocks of
// 1,000 bare requests (~0.2 s) put that on top of every mode's cost: `lanewatch` bare at
// concurrency 16 came out ×1.38–1.81 in six processes with such blocks, ×1.24–1.30 in four with
// blocks of 5,000 and ×1.25–1.26 in two with 20,000. So a block is given as a duration by default
// (`2s`): its number of requests is set from how fast the last round of the warm-up went.
//
//   bench-interleaved.ts <modes,…> <url> <concurrency> <cycles> <block|seconds"s"> <warm-up> <workload>
//
// Prints, as JSON: the block's number of requests, and for each mode its CPU microseconds per
// request in each cycle — the whole process's (`cpu`), and the main thread's alone (`main`, where
// Node has `process.threadCpuUsage`): the rest is the other threads', most of it the garbage
// collector's helpers and its concurrent marking, which its pauses do not show.
import { cpuMicros, requestRunner, type Workload } from './bench-requests.ts';
import type { Mode } from './bench-sdk.ts';

const [list = 'none', url = '', c = '1', cy = '4', b = '2s', w = '12000', workload = 'stream'] =
  process.argv.slice(2);
const modes = list.split(',') as Mode[];
const cycles = Number(cy);
const blockSeconds = b.endsWith('s') ? Number(b.slice(0, -1)) : undefined;
const warmup = Number(w);
if (
  !(cycles > 0) ||
  !(warmup >= 0) ||
  (blockSeconds === undefined ? !(Number(b) > 0) : !(blockSeconds > 0))
) {
  throw new Error(
    `bench-interleaved: cycles (${cy}) and the block (${b}: requests, or seconds as "2s") must be positive, the warm-up (${w}) a count`,
  );
}

void globalThis.fetch;
const { modeToggles } = await import('./bench-sdk.ts');
const toggles = modeToggles(modes);
const run = await requestRunner(url, workload as Workload, Number(c));

// Warm-up: every mode in turn, in blocks, until `warmup` requests have been made. The wall time of
// the last round (one block of every mode) sets the block's length when it is given in seconds.
const warmupBlock = Math.max(
  1,
  Math.min(blockSeconds === undefined ? Number(b) : 1000, Math.ceil(warmup / (4 * modes.length))),
);
const timed: Array<{ ms: number; requests: number }> = [];
async function timedBlock(mode: Mode, requests: number): Promise<void> {
  const toggle = toggles[mode];
  const started = performance.now();
  toggle.on();
  await run(requests);
  toggle.off();
  timed.push({ ms: performance.now() - started, requests });
}
for (let made = 0, i = 0; made < warmup; made += warmupBlock, i++) {
  await timedBlock(modes[i % modes.length] as Mode, warmupBlock);
}
if (timed.length === 0 && blockSeconds !== undefined) await timedBlock(modes[0] as Mode, 100);
const lastRound = timed.slice(-modes.length);
const msPerRequest = lastRound.reduce((a, t) => a + t.ms, 0) / lastRound.reduce((a, t) => a + t.requests, 0);
const block =
  blockSeconds === undefined
    ? Number(b)
    : Math.max(100, Math.round((blockSeconds * 1000) / msPerRequest / 100) * 100);

const cpu = Object.fromEntries(modes.map((mode) => [mode, [] as number[]])) as Record<Mode, number[]>;
// Since Node 23.9 (and in later 22 releases); undefined before.
const threadCpu = (
  process as { threadCpuUsage?: (since?: NodeJS.CpuUsage) => NodeJS.CpuUsage }
).threadCpuUsage?.bind(process);
const main = Object.fromEntries(modes.map((mode) => [mode, [] as number[]])) as Record<Mode, number[]>;
for (let cycle = 0; cycle < cycles; cycle++) {
  for (let i = 0; i < modes.length; i++) {
    const mode = modes[(i + cycle) % modes.length] as Mode;
    const toggle = toggles[mode];
    toggle.on();
    const before = process.cpuUsage();
    const beforeMain = threadCpu?.();
    await run(block);
    const used = cpuMicros(before);
    if (threadCpu !== undefined && beforeMain !== undefined) {
      const { user, system } = threadCpu(beforeMain);
      main[mode].push((user + system) / block);
    }
    toggle.off();
    cpu[mode].push(used / block);
  }
}
process.stdout.write(`${JSON.stringify({ block, cpu, ...(threadCpu !== undefined && { main }) })}\n`);
process.exit(0);
