// One measurement: N streamed requests at concurrency C under one instrumentation mode, in a fresh
// process. Prints CPU microseconds per request and the process's peak RSS, as JSON.

import { LanewatchInstrumentation, lanewatchViews } from '@lanewatch/instrumentation';
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';

const [mode = 'none', url = '', c = '1', n = '400'] = process.argv.slice(2);
const concurrency = Number(c);
const requests = Number(n);

// The same SDK pipeline for both instrumented modes, at the default 60 s export interval;
// exporters drop what they get, so the numbers are the instrumentation's own cost, not a network's.
const dropSpans: SpanExporter = { export: (_s, done) => done({ code: 0 }), shutdown: async () => {} };
const dropMetrics: PushMetricExporter = {
  export: (_m, done) => done({ code: 0 }),
  forceFlush: async () => {},
  shutdown: async () => {},
};
if (mode !== 'none') {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracerProvider = new TracerProvider({
    spanProcessors: [new BatchSpanProcessor({ exporter: dropSpans })],
  });
  const meterProvider = new MeterProvider({
    views: lanewatchViews(),
    readers: [new PeriodicExportingMetricReader({ exporter: dropMetrics, exportIntervalMillis: 60_000 })],
  });
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  if (mode === 'lanewatch') new LanewatchInstrumentation();
  if (mode === 'otel-undici') new UndiciInstrumentation();
}

const body = JSON.stringify({
  model: 'gpt-bench',
  stream: true,
  messages: [{ role: 'user', content: 'hi' }],
});
async function one(): Promise<void> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  while (!(await reader.read()).done);
}
async function run(count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) await one();
    }),
  );
}

await run(Math.max(50, requests / 4)); // warm-up: JIT, connection pool
const before = process.cpuUsage();
await run(requests);
const cpu = process.cpuUsage(before);
process.stdout.write(
  `${JSON.stringify({ mode, concurrency, cpuUsPerRequest: (cpu.user + cpu.system) / requests, maxRssKiB: process.resourceUsage().maxRSS })}\n`,
);
process.exit(0);
