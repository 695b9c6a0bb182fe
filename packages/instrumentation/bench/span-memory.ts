// What one finished span holds while it waits for its export: a batch span processor keeps every
// span that ended until 512 have (or 5 s have passed), 2,048 at most, so under load that is what
// stays on the heap. The span of one bench call (`SdkFloor`: the call's attributes at its start, the
// 13 span-only attributes, five milestone events) made by lanewatch's own tracer (`OwnTracer`, as
// `register` makes it) and by the SDK's tracer, 20,000 of each held by a span processor that keeps
// what it gets, the heap measured after full collections before and after. Then the same spans once
// an exporter has read their attributes and events. Prints bytes a span and the ratios.
//
//   node --expose-gc --conditions=lanewatch-source packages/instrumentation/bench/span-memory.ts
import { createNoopMeter } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { AlwaysOnSampler, ParentBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { OwnTracer, type SpanStarter, sdkSpanIdentity } from '../src/own-tracer.ts';
import { SdkFloor } from './sdk-floor.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('span-memory: run it with node --expose-gc');
const SPANS = 20_000;

const held: ReadableSpan[] = [];
const keep: SpanProcessor = {
  onStart() {},
  onEnd: (span) => void held.push(span),
  forceFlush: async () => {},
  shutdown: async () => {},
};
const sdkTracer = new TracerProvider({ spanProcessors: [keep] }).getTracer('span-memory');
const identity = sdkSpanIdentity(sdkTracer);
if (identity === undefined) throw new Error('span-memory: the SDK tracer made no recording span');
const ownTracer = new OwnTracer({
  spanProcessor: keep,
  sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  ...identity,
});

function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** Bytes a held span, before and after an exporter reads it. */
function measure(tracer: SpanStarter): { waiting: number; read: number } {
  const floor = new SdkFloor(tracer, createNoopMeter());
  for (let i = 0; i < 2000; i++) floor.record(); // compiled, and its shapes made, before measuring
  held.length = 0;
  const before = heap();
  for (let i = 0; i < SPANS; i++) floor.record();
  const waiting = (heap() - before) / SPANS;
  let seen = 0;
  for (const span of held) seen += Object.keys(span.attributes).length + span.events.length;
  if (seen !== SPANS * 27)
    throw new Error(`span-memory: read ${seen} attributes and events, not ${SPANS * 27}`);
  const read = (heap() - before) / SPANS;
  held.length = 0;
  return { waiting, read };
}

const rows: Array<[string, { waiting: number; read: number }]> = [];
for (let round = 0; round < 3; round++) {
  rows.push(['SDK tracer', measure(sdkTracer)], ['lanewatch (OwnTracer)', measure(ownTracer)]);
}
const median = (name: string, key: 'waiting' | 'read') => {
  const xs = rows
    .filter(([n]) => n === name)
    .map(([, r]) => r[key])
    .sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)] as number;
};
const sdkWaiting = median('SDK tracer', 'waiting');
process.stdout.write('span waiting for export    bytes    ×SDK | once read    ×SDK\n');
for (const name of ['SDK tracer', 'lanewatch (OwnTracer)']) {
  const waiting = median(name, 'waiting');
  const read = median(name, 'read');
  process.stdout.write(
    `${name.padEnd(26)} ${waiting.toFixed(0).padStart(6)}  ${(waiting / sdkWaiting).toFixed(2).padStart(6)} | ${read.toFixed(0).padStart(9)}  ${(read / sdkWaiting).toFixed(2).padStart(6)}\n`,
  );
}
