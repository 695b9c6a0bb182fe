import { Buffer } from 'node:buffer';
import { readAnthropicEvent } from './anthropic-messages.ts';
import { createEventStreamReader, type EventStreamMessage } from './aws-eventstream.ts';
import {
  arrayAt,
  isNonEmptyString,
  isObject,
  type JsonObject,
  jsonKeys,
  objectAt,
  parseObject,
  scanKeys,
} from './json-scan.ts';
import { openaiChatReaders } from './openai-chat.ts';
import type { Format, StreamObserver } from './stream-observer.ts';
import { createStreamReport, type StreamReport } from './stream-report.ts';

/**
 * Amazon Bedrock's streaming APIs, which answer in AWS event streams (binary frames, see
 * `aws-eventstream.ts`), not SSE. Every message counts as an event; an `exception` (or `error`)
 * message is an in-stream error typed by its `:exception-type` (`:error-code`), after which the
 * stream ends.
 *
 * `ConverseStream` (`/model/{model}/converse-stream`): one message per event, named by `:event-type`,
 * its payload the event's JSON.
 * - text: a `contentBlockDelta` whose `delta.text` is non-empty.
 * - reasoning: a non-empty `delta.reasoningContent.text` (its `signature` and `redactedContent` are
 *   not output).
 * - tool_call: a non-empty `delta.toolUse.input`; `contentBlockStart` of a tool use (its name) is not
 *   output yet.
 * - usage: `metadata` → `usage.inputTokens` plus the cache read and cache write input tokens (counted
 *   apart, as Anthropic counts them), `usage.outputTokens`.
 * - terminal: `messageStop` (the `metadata` event after it carries usage and latency only).
 *
 * `InvokeModelWithResponseStream` (`/model/{model}/invoke-with-response-stream`): `chunk` messages
 * whose payload is `{"bytes": "<base64>"}`, the model's own streaming JSON. Claude's are Anthropic
 * Messages events, read as the Anthropic format reads them. Bedrock adds
 * `amazon-bedrock-invocationMetrics` (`inputTokenCount`, `outputTokenCount`, and the cache read and
 * write counts, added to the input as for Converse) to the last chunk of every model: for models
 * other than Claude (whose events carry their own usage and end), usage and the terminal event. For the other models' payloads the text is a non-empty
 * `generation` (Meta Llama), `outputText` (Amazon Titan), `completion` (text completions),
 * `outputs[].text` (Mistral), `choices[].delta` as in Chat Completions (OpenAI's and DeepSeek's
 * models, with their reasoning), or a `contentBlockDelta` as in ConverseStream (Amazon Nova).
 */

function streamErrorOf(message: EventStreamMessage, report: StreamReport): boolean {
  const { messageType } = message;
  if (messageType !== 'exception' && messageType !== 'error') return false;
  report.event();
  report.streamError(message.exceptionType);
  return true;
}

// --- ConverseStream ---------------------------------------------------------------------------------

const CONVERSE_KEYS = jsonKeys(['text', 'reasoningContent', 'toolUse']);
const CONVERSE_KINDS = {
  text: CONVERSE_KEYS.mask('text'),
  reasoning: CONVERSE_KEYS.mask('reasoningContent'),
  tool_call: CONVERSE_KEYS.mask('toolUse'),
};
const ALL_CONVERSE_KINDS = CONVERSE_KINDS.text | CONVERSE_KINDS.reasoning | CONVERSE_KINDS.tool_call;

function readConverseDelta(delta: JsonObject | undefined, report: StreamReport): void {
  if (delta === undefined) return;
  if (isNonEmptyString(objectAt(delta, 'reasoningContent')?.text)) report.output('reasoning');
  if (isNonEmptyString(objectAt(delta, 'toolUse')?.input)) report.output('tool_call');
  if (isNonEmptyString(delta.text)) report.output('text');
}

export function converseUsage(usage: JsonObject | undefined, report: StreamReport): void {
  if (usage === undefined) return;
  let input: number | undefined;
  if (typeof usage.inputTokens === 'number') {
    input = usage.inputTokens;
    for (const cached of [usage.cacheReadInputTokens, usage.cacheWriteInputTokens]) {
      if (typeof cached === 'number') input += cached;
    }
  }
  report.usage(input, usage.outputTokens);
}

export const bedrockConverse: Format = {
  name: 'bedrock_converse',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const reader = createEventStreamReader(
      {
        onMessage(message) {
          if (streamErrorOf(message, report)) return;
          const { buffer, start, end } = message;
          if (start === end) return;
          report.event();
          switch (message.eventType) {
            case 'contentBlockDelta': {
              // A delta has one kind: the first of the three names decides, and one already seen
              // means the rest of the event (its text) need not be read.
              const unseen = report.unseen(CONVERSE_KINDS);
              if (
                unseen === 0 ||
                !scanKeys(buffer, start, end, CONVERSE_KEYS, unseen, ALL_CONVERSE_KINDS & ~unseen)
              )
                return;
              readConverseDelta(objectAt(parseObject(buffer, start, end), 'delta'), report);
              return;
            }
            case 'messageStop':
              report.terminal();
              return;
            case 'metadata':
              converseUsage(objectAt(parseObject(buffer, start, end), 'usage'), report);
              return;
          }
        },
        onIssue: (issue) => oversized(issue.type, report),
      },
      { maxMessageBytes: options?.maxLineBytes },
    );
    return { feed: reader.feed, end: reader.reset };
  },
};

// --- InvokeModelWithResponseStream ------------------------------------------------------------------

const BYTES_KEY = Buffer.from('"bytes"');
const QUOTE = 0x22;
/** An Anthropic text, thinking or tool-input delta as Bedrock encodes it: base64 of a fixed 30-byte start. */
const DELTA_BASE64 = Buffer.from(Buffer.from('{"type":"content_block_delta",').toString('base64'));
const TYPE_START = Buffer.from('{"type":"');
const ANTHROPIC_TYPES = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);
const METRICS = 'amazon-bedrock-invocationMetrics';
const METRICS_KEYS = jsonKeys([METRICS]);
const METRICS_MASK = METRICS_KEYS.mask(METRICS);

function isJsonSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * Whether the `bytes` string of a chunk's payload was found without parsing (its range in `range`);
 * when not, the payload is parsed.
 */
function base64Range(buffer: Buffer, start: number, end: number, range: [number, number]): boolean {
  const key = buffer.indexOf(BYTES_KEY, start);
  if (key === -1 || key >= end) return false;
  let i = key + BYTES_KEY.length;
  while (i < end && isJsonSpace(buffer[i])) i += 1;
  if (buffer[i] !== 0x3a /* : */) return false;
  i += 1;
  while (i < end && isJsonSpace(buffer[i])) i += 1;
  if (buffer[i] !== QUOTE) return false;
  // Base64 has no quote; its one character a JSON writer may escape, `/`, comes as `\/`, and the
  // decoder skips the backslash.
  const close = buffer.indexOf(QUOTE, i + 1);
  if (close === -1 || close >= end) return false;
  range[0] = i + 1;
  range[1] = close;
  return true;
}

function startsWith(buffer: Buffer, start: number, end: number, prefix: Buffer): boolean {
  if (end - start < prefix.length) return false;
  for (let i = 0; i < prefix.length; i += 1) if (buffer[start + i] !== prefix[i]) return false;
  return true;
}

/** The `type` of an Anthropic event written as `{"type":"…"`, without parsing; undefined otherwise. */
function leadingType(json: Buffer): string | undefined {
  if (!startsWith(json, 0, json.length, TYPE_START)) return undefined;
  const close = json.indexOf(QUOTE, TYPE_START.length);
  if (close === -1 || close - TYPE_START.length > 32) return undefined;
  const type = json.toString('latin1', TYPE_START.length, close);
  return ANTHROPIC_TYPES.has(type) ? type : undefined;
}

/** Text, reasoning and tool calls in the streaming payloads of Bedrock's other model families. */
function readOtherModel(body: JsonObject, report: StreamReport): void {
  if (
    isNonEmptyString(body.generation) ||
    isNonEmptyString(body.outputText) ||
    isNonEmptyString(body.completion) ||
    arrayAt(body, 'outputs')?.some((output) => isObject(output) && isNonEmptyString(output.text))
  ) {
    report.output('text');
  }
  if (Array.isArray(body.choices)) openaiChatReaders.readChunk(body, report);
  readConverseDelta(objectAt(objectAt(body, 'contentBlockDelta'), 'delta'), report);
}

/** Bedrock's own last word on an invocation, on the last chunk of every model: usage, and the end. */
function readInvocationMetrics(body: JsonObject, report: StreamReport): void {
  const metrics = objectAt(body, METRICS);
  if (metrics === undefined) return;
  let input: number | undefined;
  if (typeof metrics.inputTokenCount === 'number') {
    input = metrics.inputTokenCount;
    for (const cached of [metrics.cacheReadInputTokenCount, metrics.cacheWriteInputTokenCount]) {
      if (typeof cached === 'number') input += cached;
    }
  }
  report.usage(input, metrics.outputTokenCount);
  report.terminal();
}

function readChunk(
  buffer: Buffer,
  start: number,
  end: number,
  report: StreamReport,
  range: [number, number],
): void {
  let base64: string;
  if (base64Range(buffer, start, end, range)) {
    // After the first text, a Claude delta (most of a stream) is known by its first 40 base64
    // characters: nothing to decode.
    if (report.has('text') && startsWith(buffer, range[0], range[1], DELTA_BASE64)) return;
    base64 = buffer.toString('latin1', range[0], range[1]);
  } else {
    const bytes = parseObject(buffer, start, end)?.bytes;
    if (typeof bytes !== 'string') return;
    base64 = bytes;
  }
  const json = Buffer.from(base64, 'base64');
  const type = leadingType(json);
  if (type !== undefined) {
    // Claude's own usage (with its cache reads and writes) and `message_stop` say it all.
    readAnthropicEvent(type, undefined, json, 0, json.length, report);
    return;
  }
  // After the first text, only the invocation metrics can still matter.
  if (report.has('text') && !scanKeys(json, 0, json.length, METRICS_KEYS, METRICS_MASK)) return;
  const body = parseObject(json);
  if (body === undefined) return;
  if (typeof body.type === 'string' && ANTHROPIC_TYPES.has(body.type)) {
    readAnthropicEvent(body.type, body, json, 0, json.length, report);
    return;
  }
  readOtherModel(body, report);
  readInvocationMetrics(body, report);
}

export const bedrockInvoke: Format = {
  name: 'bedrock_invoke',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const range: [number, number] = [0, 0];
    const reader = createEventStreamReader(
      {
        onMessage(message) {
          if (streamErrorOf(message, report)) return;
          const { buffer, start, end } = message;
          if (start === end) return;
          report.event();
          if (message.eventType === 'chunk') readChunk(buffer, start, end, report, range);
        },
        onIssue: (issue) => oversized(issue.type, report),
      },
      { maxMessageBytes: options?.maxLineBytes },
    );
    return { feed: reader.feed, end: reader.reset };
  },
};

// --- any other event stream -------------------------------------------------------------------------

/** An event stream of an unknown API: every message is an event (first chunk and end), nothing is read. */
export const genericEventStream: Format = {
  name: 'eventstream',
  hasTerminal: false,
  createDetector(observer: StreamObserver, options) {
    const report = createStreamReport(observer);
    const reader = createEventStreamReader(
      {
        onMessage(message) {
          const { messageType } = message;
          if (message.end > message.start || messageType === 'exception' || messageType === 'error')
            report.event();
        },
        onIssue: (issue) => oversized(issue.type, report),
      },
      { maxMessageBytes: options?.maxLineBytes },
    );
    return { feed: reader.feed, end: reader.reset };
  },
};

/** A message over the cap still was one; a body that is not an event stream is not read further. */
function oversized(type: 'message-too-long' | 'not-an-event-stream', report: StreamReport): void {
  if (type !== 'message-too-long') return;
  report.event();
  report.oversizedLine();
}
