// What one streamed request costs lanewatch, in isolation, and how much of it is the floor that
// OpenTelemetry sets: the diagnostics-channel messages undici publishes for one request of
// `npm run bench` (create, request body, headers, the 50 body chunks as the bench server sends them,
// trailers) are published straight to the instrumentation, with the SDK pipeline of the bench and
// no network. Interleaved in one process against:
//   - sdk floor: the same recording span (same attributes, five events) and the same eight histogram
//     records with the same attributes, made directly — what any instrumentation recording these
//     signals pays the SDK;
//   - the same, recorded as lanewatch records them (points under stand-ins in its own meter, see
//     `OwnMeter`; the span made by its own tracer, see `OwnTracer`): lanewatch's own share of the
//     SDK's cost;
//   - lanewatch with its spans through the SDK's tracer (what the class does in an SDK of your own);
//   - detector: the Chat Completions detector alone, fed the same 50 chunks.
// Then the uninstrumented steady-state CPU per request of the real benchmark (bench-client `none`,
// fresh processes) turns each into the ratio `npm run bench` would show if it were the only cost.
//
//   node --conditions=lanewatch-source packages/instrumentation/bench/instrumentation-cost.ts [rounds]

import { execFile, fork } from 'node:child_process';
import diagnosticsChannel from 'node:diagnostics_channel';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { context } from '@opentelemetry/api';
import { CallRecord } from '../src/call-record.ts';
import { FORMATS } from '../src/formats/index.ts';
import { LanewatchInstrumentation } from '../src/index.ts';
import { INSTRUMENTATION_SCOPE } from '../src/names.ts';
import type { RequestIdentity } from '../src/request-identity.ts';
import { startBenchSdk } from './bench-sdk.ts';
import { CHAT_BODY, CHAT_PATH } from './bench-workload.ts';
import { SdkFloor } from './sdk-floor.ts';

const rounds = Number(process.argv[2] ?? 15);
const BATCH = 2000;
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
// The flags the children need to load the sources: the conditions, and on a Node before 22.18
// (type stripping off by default) --experimental-strip-types.
const conditions = process.execArgv.filter(
  (a) => a.startsWith('--conditions') || a === '--experimental-strip-types',
);

// --- the bytes of one real response of the bench server --------------------------------------------
const server = fork(here('./bench-server.ts'), {
  stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  execArgv: conditions,
});
const [line] = (await once(server.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
const { stream: url } = JSON.parse(line.toString()) as { stream: string };
const response = await fetch(`${url}${CHAT_PATH}`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: CHAT_BODY,
});
const responseHeaders = [...response.headers].flatMap(([name, value]) => [
  Buffer.from(name),
  Buffer.from(value),
]);
// One chunk per event, as undici hands them over when the server writes one event at a time.
const chunks = (await response.text()).split(/(?<=\n\n)/).map((event) => Buffer.from(event));
const origin = new URL(url).origin;
const requestBody = new TextEncoder().encode(CHAT_BODY);

// --- lanewatch: the messages of one request ---------------------------------------------------------
const sdk = startBenchSdk();
// As `register` runs it: finished calls recorded in batches, into its own meter, its spans made by
// its own tracer; and the same with its spans through the SDK's tracer.
const lanewatch = new LanewatchInstrumentation({ enabled: false, batchRecording: true });
sdk.useOwnMeter(lanewatch);
sdk.useOwnTracer(lanewatch);
const lanewatchSdkSpans = new LanewatchInstrumentation({ enabled: false, batchRecording: true });
sdk.useOwnMeter(lanewatchSdkSpans);
const channel = (name: string) => diagnosticsChannel.channel(`undici:request:${name}`);
const [create, bodySent, headers, chunk, trailers] = [
  'create',
  'bodyChunkSent',
  'headers',
  'bodyChunkReceived',
  'trailers',
].map(channel) as [
  diagnosticsChannel.Channel,
  diagnosticsChannel.Channel,
  diagnosticsChannel.Channel,
  diagnosticsChannel.Channel,
  diagnosticsChannel.Channel,
];
function oneRequest(): void {
  // What undici 7 hands its subscribers for a global-fetch POST (the fields lanewatch reads).
  const request = {
    origin,
    path: CHAT_PATH,
    method: 'POST',
    headers: [
      'content-type',
      'application/json',
      'accept',
      '*/*',
      'accept-language',
      '*',
      'sec-fetch-mode',
      'cors',
      'user-agent',
      'node',
      'accept-encoding',
      'gzip, deflate',
    ],
    body: null,
  };
  // undici builds a message only when a channel has subscribers: so do we.
  if (create.hasSubscribers) create.publish({ request });
  if (bodySent.hasSubscribers) bodySent.publish({ request, chunk: requestBody });
  if (headers.hasSubscribers)
    headers.publish({ request, response: { statusCode: 200, headers: responseHeaders, statusText: 'OK' } });
  for (const c of chunks) if (chunk.hasSubscribers) chunk.publish({ request, chunk: c });
  if (trailers.hasSubscribers) trailers.publish({ request, trailers: [] });
}

// --- the SDK floor: the same signals, recorded directly ---------------------------------------------
const ownFloor = new SdkFloor(sdk.ownTracer, sdk.ownMeter, sdk.ownPointAttributes);
const sdkFloor = new SdkFloor(
  sdk.tracerProvider.getTracer('bench-floor'),
  sdk.meterProvider.getMeter(INSTRUMENTATION_SCOPE, 'bench-floor'),
);

// --- the detector alone -----------------------------------------------------------------------------
const identity = { model: 'gpt-bench' } as RequestIdentity;
let observed = 0;
function detectorOnly(): void {
  const record = new CallRecord(identity, context.active(), performance.now());
  const detector = FORMATS.openai_chat.createDetector(record);
  for (const c of chunks) detector.feed(c);
  detector.end();
  observed += record.chunks;
}

// --- measurement ------------------------------------------------------------------------------------
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const KINDS = {
  lanewatch: () => {
    lanewatch.enable();
    for (let i = 0; i < BATCH; i++) oneRequest();
    lanewatch.disable();
  },
  'lanewatch, SDK spans': () => {
    lanewatchSdkSpans.enable();
    for (let i = 0; i < BATCH; i++) oneRequest();
    lanewatchSdkSpans.disable();
  },
  'sdk floor': () => {
    for (let i = 0; i < BATCH; i++) sdkFloor.record();
  },
  'own floor': () => {
    for (let i = 0; i < BATCH; i++) ownFloor.record();
  },
  detector: () => {
    for (let i = 0; i < BATCH; i++) detectorOnly();
  },
};
type Kind = keyof typeof KINDS;
const samples: Record<Kind, number[]> = {
  lanewatch: [],
  'lanewatch, SDK spans': [],
  'sdk floor': [],
  'own floor': [],
  detector: [],
};
const names = Object.keys(KINDS) as Kind[];
for (let round = -3; round < rounds; round++) {
  for (let k = 0; k < names.length; k++) {
    const kind = names[(k + round + 3) % names.length] as Kind;
    const start = cpuMicros();
    KINDS[kind]();
    const perRequest = (cpuMicros() - start) / BATCH;
    if (round >= 0) samples[kind].push(perRequest);
    await new Promise((resolve) => setImmediate(resolve)); // let the batch span processor export
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

// --- the baseline: uninstrumented steady state of the real benchmark ----------------------------------
const run = promisify(execFile);
const baseline: Record<number, number> = {};
for (const concurrency of [1, 16]) {
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const { stdout } = await run(process.execPath, [
      ...conditions,
      here('./bench-client.ts'),
      'none',
      url,
      String(concurrency),
      '2000',
      '2000',
    ]);
    runs.push((JSON.parse(stdout) as { cpuUsPerRequest: number }).cpuUsPerRequest);
  }
  baseline[concurrency] = median(runs);
}
server.disconnect();

const total = median(samples.lanewatch);
const floor = median(samples['sdk floor']);
const own = median(samples['own floor']);
const detector = median(samples.detector);
const asRatio = (us: number) =>
  [1, 16].map((c) => `×${(1 + us / (baseline[c] as number)).toFixed(3)} at c=${c}`).join(', ');
console.log(`node ${process.version}; medians of ${rounds} interleaved rounds of ${BATCH} requests`);
console.log(
  `uninstrumented request, steady state (bench-client none, 3 runs): ${(baseline[1] as number).toFixed(0)} µs at c=1, ${(baseline[16] as number).toFixed(0)} µs at c=16\n`,
);
const show = (label: string, us: number, ratio = true) =>
  console.log(`${label.padEnd(44)}${us.toFixed(1).padStart(6)} µs${ratio ? `   ${asRatio(us)}` : ''}`);
show('lanewatch, one request in isolation', total);
show('  the SDK: span + 8 records, as lanewatch', own);
show('  detector: 50 events', detector, false);
show('  the rest: channels, identity, record', total - own - detector, false);
show("lanewatch, its spans by the SDK's tracer", median(samples['lanewatch, SDK spans']));
show('sdk floor: span + 8 records, plainly', floor);
if (observed === 0) throw new Error('the detector saw no event');
process.exit(0);
