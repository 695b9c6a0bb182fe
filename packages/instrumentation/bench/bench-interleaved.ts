// The steady-state measurement: every mode in one process, taking turns. A fresh process is not in
// its steady state after a few thousand requests — on a slow day its uninstrumented CPU per request
// was still falling after 12 000, by half from the 2 000th (user and system time alike; not the
// workload, whose body still came in 50 chunks, nor the young generation's size, which a fixed one
// did not change) — and processes differ from one start to the next by 10–20 % on this machine. Here one long
// warm-up (every mode in turn, so all of their code is compiled) is followed by cycles in which each
// mode makes one block of requests, in an order that rotates from cycle to cycle; each mode's block
// is compared with `none`'s block of the same cycle, seconds apart in the same process.
//
//   bench-interleaved.ts <modes,…> <url> <concurrency> <cycles> <block> <warm-up> <workload>
//
// Prints, as JSON: for each mode, its CPU microseconds per request in each cycle.
import { cpuMicros, requestRunner, type Workload } from './bench-requests.ts';
import type { Mode } from './bench-sdk.ts';

const [list = 'none', url = '', c = '1', cy = '8', b = '1000', w = '12000', workload = 'stream'] =
  process.argv.slice(2);
const modes = list.split(',') as Mode[];
const cycles = Number(cy);
const block = Number(b);
const warmup = Number(w);

void globalThis.fetch;
const { modeToggles } = await import('./bench-sdk.ts');
const toggles = modeToggles(modes);
const run = await requestRunner(url, workload as Workload, Number(c));

// Warm-up: every mode in turn, in blocks, until `warmup` requests have been made.
const warmupBlock = Math.max(1, Math.min(block, Math.ceil(warmup / (4 * modes.length))));
for (let made = 0, i = 0; made < warmup; made += warmupBlock, i++) {
  const toggle = toggles[modes[i % modes.length] as Mode];
  toggle.on();
  await run(warmupBlock);
  toggle.off();
}

const cpu = Object.fromEntries(modes.map((mode) => [mode, [] as number[]])) as Record<Mode, number[]>;
for (let cycle = 0; cycle < cycles; cycle++) {
  for (let i = 0; i < modes.length; i++) {
    const mode = modes[(i + cycle) % modes.length] as Mode;
    const toggle = toggles[mode];
    toggle.on();
    const before = process.cpuUsage();
    await run(block);
    const used = cpuMicros(before);
    toggle.off();
    cpu[mode].push(used / block);
  }
}
process.stdout.write(`${JSON.stringify({ cpu })}\n`);
process.exit(0);
