// Per-event CPU time of the format detectors, before and after the first text, as multiples of a
// bare line splitter fed the same chunks in the same run (never an absolute time: machines differ).
//
//   node packages/instrumentation/bench/detectors.ts [rounds, default 15]
//
// Each stream is one event per chunk, as providers flush them. "before" is every event up to and
// including the first text delta (metadata, role, ping, reasoning), each stream with a new detector;
// "after" is a long run of text deltas fed to a detector that has already seen its first text —
// where most of a stream's events are. The baseline is a bare line splitter: one native LF search per
// line, no allocation (for an AWS event stream: one length read per message). "parse all" is the same
// SSE/NDJSON/event-stream parsing plus a JSON.parse of every event (for Bedrock's invoke API, of the
// payload and of its base64-decoded event): what a detector without its byte checks would cost.
import { Buffer } from 'node:buffer';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { createEventStreamReader } from '../src/formats/aws-eventstream.ts';
import { FORMATS } from '../src/formats/index.ts';
import { createNdjsonParser } from '../src/formats/ndjson-parser.ts';
import { createSseParser } from '../src/formats/sse-parser.ts';
import type { Format, StreamObserver } from '../src/formats/stream-observer.ts';

interface Workload {
  readonly label: string;
  readonly format: Format;
  /** Events up to and including the first text, one chunk each. */
  readonly before: readonly Buffer[];
  /** Text deltas after the first text, one chunk each. */
  readonly after: readonly Buffer[];
}

const AFTER_EVENTS = 20_000;
const BEFORE_STREAMS = 2_000;
const rounds = Number(process.argv[2] ?? 15);

const WORDS = ['tide', ' moon', ' harbor', ' ebb', ' swell', ' brine', ' neap', ' spring', ' kelp', ' shoal'];
const word = (i: number) => `${WORDS[i % WORDS.length]}${i % 7 === 0 ? '.' : ''}`;
const sseEvent = (data: object, name?: string) =>
  Buffer.from(`${name === undefined ? '' : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`);
const many = (make: (i: number) => Buffer) => Array.from({ length: AFTER_EVENTS }, (_, i) => make(i));

const chatChunk = (delta: object, i = 0) => ({
  id: 'chatcmpl-Bx7tQ2mKp9',
  object: 'chat.completion.chunk',
  created: 1764489600,
  model: 'gpt-4o-mini-2024-07-18',
  service_tier: 'default',
  system_fingerprint: 'fp_51e1070cf2',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
  usage: null,
  obfuscation: 'Qx3k'.slice(0, 1 + (i % 4)),
});
const deepseekChunk = (delta: object) => ({
  id: 'e3c1a7f0-5d2b-4c8e-9f1a-2b3c4d5e6f70',
  object: 'chat.completion.chunk',
  created: 1764489600,
  model: 'deepseek-reasoner',
  system_fingerprint: 'fp_7e0991cad4_prod0820_fp8_kvcache',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
});
const response = {
  id: 'resp_68f1a2b3c4d5',
  object: 'response',
  created_at: 1764489600,
  status: 'in_progress',
  error: null,
  instructions: 'Answer in one short paragraph about the sea.',
  model: 'gpt-4.1-mini-2025-04-14',
  output: [],
  parallel_tool_calls: true,
  reasoning: { effort: null, summary: null },
  text: { format: { type: 'text' }, verbosity: 'medium' },
  tool_choice: 'auto',
  tools: [],
  usage: null,
};
const textDelta = (i: number) =>
  sseEvent(
    {
      type: 'response.output_text.delta',
      sequence_number: 4 + i,
      item_id: 'msg_68f1a2b3e6f7',
      output_index: 0,
      content_index: 0,
      delta: word(i),
      logprobs: [],
      obfuscation: 'a1Zk',
    },
    'response.output_text.delta',
  );
const anthropicDelta = (i: number) =>
  sseEvent(
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word(i) } },
    'content_block_delta',
  );
// Amazon Bedrock's AWS event-stream messages, framed by AWS's codec, padded as Bedrock pads them.
const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);
const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const awsEvent = (eventType: string, payload: object, i = 0) =>
  Buffer.from(
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: eventType },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: Buffer.from(JSON.stringify({ ...payload, p: PADDING.slice(0, 1 + ((i * 7) % 40)) })),
    }),
  );
const invokeChunk = (event: object, i = 0) =>
  awsEvent('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') }, i);
const invokeDelta = (i: number) =>
  invokeChunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word(i) } }, i);
const converseDelta = (i: number) =>
  awsEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: word(i) } }, i);
const geminiEvent = (i: number) =>
  Buffer.from(
    `data: {"candidates": [{"content": {"parts": [{"text": "${word(i)}${word(i + 1)}${word(i + 2)}"}],"role": "model"},"index": 0}],` +
      `"usageMetadata": {"promptTokenCount": 8,"candidatesTokenCount": ${3 + i},"totalTokenCount": ${11 + i},` +
      `"promptTokensDetails": [{"modality": "TEXT","tokenCount": 8}],"thoughtsTokenCount": 120},` +
      `"modelVersion": "gemini-2.5-flash","responseId": "qpc2afWVFJK4vr0Pq6WiyAU"}\r\n\r\n`,
  );
const cohereDelta = (i: number) =>
  sseEvent(
    { type: 'content-delta', index: 0, delta: { message: { content: { text: word(i) } } } },
    'content-delta',
  );
const ollamaRecord = (i: number, extra: object = {}) =>
  Buffer.from(
    `${JSON.stringify({
      model: 'qwen3:8b',
      created_at: `2026-11-30T08:00:${String(i % 60).padStart(2, '0')}.123456789Z`,
      message: { role: 'assistant', content: word(i), ...extra },
      done: false,
    })}\n`,
  );

const WORKLOADS: readonly Workload[] = [
  {
    label: 'openai_chat',
    format: FORMATS.openai_chat,
    before: [
      sseEvent(chatChunk({ role: 'assistant', content: '', refusal: null })),
      sseEvent(chatChunk({ content: 'The' })),
    ],
    after: many((i) => sseEvent(chatChunk({ content: word(i) }, i))),
  },
  {
    label: 'openai_chat (reasoning first)',
    format: FORMATS.openai_chat,
    before: [
      Buffer.from(': keep-alive\n\n'),
      sseEvent(deepseekChunk({ role: 'assistant', content: null, reasoning_content: '' })),
      ...Array.from({ length: 30 }, (_, i) =>
        sseEvent(deepseekChunk({ content: null, reasoning_content: word(i) })),
      ),
      sseEvent(deepseekChunk({ content: 'Low', reasoning_content: null })),
    ],
    after: many((i) => sseEvent(deepseekChunk({ content: word(i), reasoning_content: null }))),
  },
  {
    label: 'openai_responses',
    format: FORMATS.openai_responses,
    before: [
      sseEvent({ type: 'response.created', sequence_number: 0, response }, 'response.created'),
      sseEvent({ type: 'response.in_progress', sequence_number: 1, response }, 'response.in_progress'),
      sseEvent(
        {
          type: 'response.output_item.added',
          sequence_number: 2,
          output_index: 0,
          item: {
            id: 'msg_68f1a2b3e6f7',
            type: 'message',
            status: 'in_progress',
            content: [],
            role: 'assistant',
          },
        },
        'response.output_item.added',
      ),
      sseEvent(
        {
          type: 'response.content_part.added',
          sequence_number: 3,
          item_id: 'msg_68f1a2b3e6f7',
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
        },
        'response.content_part.added',
      ),
      textDelta(0),
    ],
    after: many((i) => textDelta(i + 1)),
  },
  {
    label: 'anthropic_messages',
    format: FORMATS.anthropic_messages,
    before: [
      sseEvent(
        {
          type: 'message_start',
          message: {
            id: 'msg_01XkT9fQ2r',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: {
              input_tokens: 25,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              output_tokens: 1,
            },
          },
        },
        'message_start',
      ),
      sseEvent(
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        'content_block_start',
      ),
      sseEvent({ type: 'ping' }, 'ping'),
      anthropicDelta(0),
    ],
    after: many((i) => anthropicDelta(i + 1)),
  },
  {
    label: 'gemini',
    format: FORMATS.gemini,
    before: [geminiEvent(0)],
    after: many((i) => geminiEvent(i + 1)),
  },
  {
    label: 'ollama',
    format: FORMATS.ollama,
    before: [
      ollamaRecord(0, { content: '', thinking: 'Tides' }),
      ollamaRecord(1, { content: '', thinking: ' follow' }),
      ollamaRecord(2),
    ],
    after: many((i) => ollamaRecord(i + 3)),
  },
  {
    label: 'cohere_chat',
    format: FORMATS.cohere_chat,
    before: [
      sseEvent(
        {
          id: '8f2c1d3e-5b7a-4c9e-a1f0-3d2b6e8c9a71',
          type: 'message-start',
          delta: {
            message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] },
          },
        },
        'message-start',
      ),
      sseEvent(
        { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } },
        'content-start',
      ),
      cohereDelta(0),
    ],
    after: many((i) => cohereDelta(i + 1)),
  },
  {
    label: 'bedrock_invoke (Claude)',
    format: FORMATS.bedrock_invoke,
    before: [
      invokeChunk({
        type: 'message_start',
        message: {
          id: 'msg_bdrk_01XkT9fQ2r',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 25, output_tokens: 1 },
        },
      }),
      invokeChunk({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      invokeDelta(0),
    ],
    after: many((i) => invokeDelta(i + 1)),
  },
  {
    label: 'bedrock_converse',
    format: FORMATS.bedrock_converse,
    before: [awsEvent('messageStart', { role: 'assistant' }), converseDelta(0)],
    after: many((i) => converseDelta(i + 1)),
  },
  {
    label: 'sse (unknown format)',
    format: FORMATS.sse,
    before: [anthropicDelta(0)],
    after: many((i) => anthropicDelta(i + 1)),
  },
  {
    label: 'ndjson (unknown format)',
    format: FORMATS.ndjson,
    before: [ollamaRecord(0)],
    after: many((i) => ollamaRecord(i + 1)),
  },
];

// --- the three consumers compared ------------------------------------------------------------------

interface Consumer {
  feed(chunk: Uint8Array): void;
}

let sink = 0; // every consumer writes here, so no work can be optimized away
const observer: StreamObserver = {
  event: () => {
    sink += 1;
  },
  output: () => {
    sink += 2;
  },
  usage: () => {
    sink += 3;
  },
  terminal: () => {
    sink += 4;
  },
  streamError: () => {
    sink += 5;
  },
};

// The least work that finds the events: the LF of every line, and nothing else (the chunks here are
// whole events, so no line needs carrying over); in an AWS event stream, each message's length.
const bareSplitter = (format: Format): Consumer =>
  format.name.startsWith('bedrock')
    ? {
        feed(chunk) {
          const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          for (let at = 0; at + 12 <= buffer.length; at += buffer.readUInt32BE(at)) sink += at;
        },
      }
    : {
        feed(chunk) {
          for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) sink += at;
        },
      };

const parseAll = (format: Format): Consumer => {
  const parse = (buffer: Buffer, start: number, end: number) => {
    try {
      sink += JSON.parse(buffer.toString('utf8', start, end)) === null ? 0 : 1;
    } catch {
      sink -= 1;
    }
  };
  if (format.name === 'ollama' || format.name === 'ndjson') return createNdjsonParser({ onRecord: parse });
  if (format.name === 'bedrock_converse')
    return createEventStreamReader({ onMessage: (m) => parse(m.buffer, m.start, m.end) });
  if (format.name === 'bedrock_invoke') {
    return createEventStreamReader({
      onMessage({ buffer, start, end }) {
        const { bytes } = JSON.parse(buffer.toString('utf8', start, end)) as { bytes: string };
        const json = Buffer.from(bytes, 'base64');
        parse(json, 0, json.length);
      },
    });
  }
  return createSseParser({ onEvent: ({ buffer, start, end }) => parse(buffer, start, end) });
};

type Make = (format: Format) => Consumer;
const CONSUMERS: readonly [name: string, make: Make][] = [
  ['baseline', bareSplitter],
  ['parse all', parseAll],
  ['detector', (format) => format.createDetector(observer)],
];

// --- measurement -------------------------------------------------------------------------------------

// CPU time of this process, in microseconds: on a shared machine, wall time would mostly measure the
// scheduler. (The process's, not the thread's: on Linux the thread's advances in coarse steps.)
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * CPU nanoseconds per event over the events up to the first text, each stream with a new consumer: its
 * creation is part of what a stream costs before its first text.
 */
function timeBefore(workload: Workload, make: Make): number {
  const start = cpuMicros();
  for (let stream = 0; stream < BEFORE_STREAMS; stream += 1) {
    const consumer = make(workload.format);
    for (const chunk of workload.before) consumer.feed(chunk);
  }
  return ((cpuMicros() - start) * 1e3) / (BEFORE_STREAMS * workload.before.length);
}

/** CPU nanoseconds per event over the text deltas, for a consumer that has seen the first text. */
function timeAfter(workload: Workload, make: Make): number {
  const consumer = make(workload.format);
  for (const chunk of workload.before) consumer.feed(chunk);
  const start = cpuMicros();
  for (const chunk of workload.after) consumer.feed(chunk);
  return ((cpuMicros() - start) * 1e3) / workload.after.length;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

function measure(workload: Workload): Map<string, { before: number; after: number }> {
  const samples = new Map(
    CONSUMERS.map(([name]) => [name, { before: [] as number[], after: [] as number[] }]),
  );
  for (let round = -3; round < rounds; round += 1) {
    // Interleaved, in a rotating order, so drift and JIT warm-up fall on every consumer alike.
    for (let k = 0; k < CONSUMERS.length; k += 1) {
      const [name, make] = CONSUMERS[(k + round + 3) % CONSUMERS.length] as [string, Make];
      const before = timeBefore(workload, make);
      const after = timeAfter(workload, make);
      if (round < 0) continue; // warm-up
      samples.get(name)?.before.push(before);
      samples.get(name)?.after.push(after);
    }
  }
  return new Map(
    [...samples].map(([name, s]) => [name, { before: median(s.before), after: median(s.after) }]),
  );
}

const ratio = (value: number) => `${value.toFixed(2)}×`;
const columns = [32, 18, 18, 18];
const row = (cells: string[]) => cells.map((cell, i) => cell.padEnd(columns[i] ?? 12)).join('');

console.log(
  `Per-event CPU time as a multiple of a bare line splitter on the same chunks; median of ${rounds} interleaved rounds.\n`,
);
console.log(row(['format', 'before 1st text', 'after 1st text', 'parse all, after']));
for (const workload of WORKLOADS) {
  const result = measure(workload);
  const base = result.get('baseline') as { before: number; after: number };
  const detector = result.get('detector') as { before: number; after: number };
  const naive = result.get('parse all') as { before: number; after: number };
  console.log(
    row([
      workload.label,
      ratio(detector.before / base.before),
      ratio(detector.after / base.after),
      ratio(naive.after / base.after),
    ]),
  );
}
if (sink === Number.MIN_SAFE_INTEGER) console.log(sink);
