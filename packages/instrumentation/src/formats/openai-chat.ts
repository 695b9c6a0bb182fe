import { Buffer } from 'node:buffer';
import {
  arrayAt,
  bytesEqual,
  integerMember,
  isNonEmptyString,
  isObject,
  type JsonObject,
  jsonKeys,
  type KeyHit,
  keyIs,
  objectAt,
  parseObject,
  pathIn,
  scanKeys,
  soleKey,
} from './json-scan.ts';
import { createSseParser } from './sse-parser.ts';
import type { Format } from './stream-observer.ts';
import { createStreamReport, type StreamReport } from './stream-report.ts';

/**
 * OpenAI Chat Completions streaming (`data: {chat.completion.chunk}` … `data: [DONE]`) and the servers
 * that speak it: vLLM, DeepSeek, OpenRouter, Groq, Mistral, llama.cpp, LiteLLM.
 *
 * - text: a non-empty `choices[].delta.content` string, or a `{"type":"text"}` part with text when
 *   `content` is an array (Mistral's reasoning models).
 * - reasoning: a non-empty `delta.reasoning_content` (DeepSeek, vLLM) or `delta.reasoning`
 *   (OpenRouter, Groq, newer vLLM), or a `{"type":"thinking"}` content part (Mistral).
 * - tool_call: a non-empty `delta.tool_calls[].function.arguments` (or the legacy
 *   `delta.function_call.arguments`). The first tool-call delta usually carries the name with
 *   `arguments: ""`: a name alone is not output yet — it announces the call, the arguments are what
 *   the model then writes, and they follow at once when the call has any.
 * - role-only deltas, `content: ""`/`null`, `finish_reason` chunks: events, not output.
 * - usage: `usage` (with `stream_options.include_usage`; Mistral always) or Groq's `x_groq.usage`:
 *   `prompt_tokens` / `completion_tokens`.
 * - terminal: `data: [DONE]`. A stream that stops after `finish_reason` without it is truncated.
 * - errors: a chunk with `error` (OpenAI, OpenRouter mid-stream, llama.cpp) typed by `error.type`,
 *   else `error.code`; vLLM's `{"object":"error","type":…}`; an SSE `event: error`.
 */

const DONE = Buffer.from('[DONE]');
// `error` as a key (`"error": {…}`) or a value (`"object": "error"`, OpenRouter's `"finish_reason":
// "error"`): either is worth a look.
const KEYS = jsonKeys(
  ['content', 'reasoning_content', 'reasoning', 'thinking', 'tool_calls', 'function_call', 'usage'],
  ['error'],
);
const KIND_KEYS = {
  text: KEYS.mask('content'),
  reasoning: KEYS.mask('reasoning_content', 'reasoning', 'thinking'),
  tool_call: KEYS.mask('tool_calls', 'function_call'),
};
const ALWAYS = KEYS.mask('usage', 'error');

function errorTypeOf(error: unknown): unknown {
  if (!isObject(error)) return undefined; // `"error": "some text"` carries no type
  return error.type ?? error.code;
}

function readContentParts(parts: readonly unknown[], report: StreamReport): void {
  for (const part of parts) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && isNonEmptyString(part.text)) report.output('text');
    else if (part.type === 'thinking' && hasThinkingText(part.thinking)) report.output('reasoning');
  }
}

function hasThinkingText(thinking: unknown): boolean {
  if (isNonEmptyString(thinking)) return true;
  if (!Array.isArray(thinking)) return false;
  return thinking.some((part) => isObject(part) && isNonEmptyString(part.text));
}

function readDelta(delta: JsonObject, report: StreamReport): void {
  if (isNonEmptyString(delta.reasoning_content) || isNonEmptyString(delta.reasoning))
    report.output('reasoning');
  const content = delta.content;
  if (isNonEmptyString(content)) report.output('text');
  else if (Array.isArray(content)) readContentParts(content, report);
  const toolCalls = arrayAt(delta, 'tool_calls');
  if (toolCalls?.some((call) => isNonEmptyString(objectAt(call, 'function')?.arguments))) {
    report.output('tool_call');
  }
  if (isNonEmptyString(objectAt(delta, 'function_call')?.arguments)) report.output('tool_call');
}

const CONTENT = KEYS.mask('content');
const USAGE = KEYS.mask('usage');
const CHOICES = Buffer.from('choices');
const DELTA = Buffer.from('delta');
const PROMPT_TOKENS = Buffer.from('prompt_tokens');
const COMPLETION_TOKENS = Buffer.from('completion_tokens');
const QUOTE = 0x22;
const OPEN_BRACE = 0x7b;
const HIT: KeyHit = { bit: -1, key: 0, value: 0 };
const PATH: number[] = [];

/**
 * The two events of nearly every stream that are worth a look, read without `JSON.parse` (which
 * costs several µs an event inside a busy process) when nothing else in them can matter — the one
 * occurrence of a wanted name in the event (see `soleKey`), in a whole object:
 * - a text delta: `choices[i].delta.content` a non-empty string: text, as `readChunk` finds it;
 * - the usage report: a top-level `usage` object whose `prompt_tokens` and `completion_tokens` are
 *   absent or plain whole numbers.
 * Anything else (another name, a second occurrence, an event cut short, a number written otherwise)
 * returns false, and the event is parsed.
 */
function readPlainly(
  buffer: Buffer,
  start: number,
  end: number,
  wanted: number,
  report: StreamReport,
): boolean {
  if (!soleKey(buffer, start, end, KEYS, wanted, HIT)) return false;
  const found = 1 << HIT.bit;
  if (found === CONTENT) {
    if (buffer[HIT.value] !== QUOTE || !pathIn(buffer, start, end, HIT.key, PATH)) return false;
    // { "choices": [ { "delta": { "content"
    if (PATH.length !== 4 || !keyIs(buffer, PATH[1] as number, CHOICES) || PATH[2] !== -1) return false;
    if (!keyIs(buffer, PATH[3] as number, DELTA)) return false;
    report.output('text');
    return true;
  }
  if (found === USAGE) {
    if (buffer[HIT.value] !== OPEN_BRACE || !pathIn(buffer, start, end, HIT.key, PATH)) return false;
    if (PATH.length !== 1) return false;
    const input = integerMember(buffer, HIT.value, end, PROMPT_TOKENS);
    const output = integerMember(buffer, HIT.value, end, COMPLETION_TOKENS);
    if (Number.isNaN(input) || Number.isNaN(output)) return false;
    report.usage(input, output);
    return true;
  }
  return false;
}

function readChunk(chunk: JsonObject, report: StreamReport): void {
  if (chunk.error !== undefined && chunk.error !== null) report.streamError(errorTypeOf(chunk.error));
  else if (chunk.object === 'error') report.streamError(chunk.type ?? chunk.code);
  for (const choice of arrayAt(chunk, 'choices') ?? []) {
    const delta = objectAt(choice, 'delta');
    if (delta !== undefined) readDelta(delta, report);
  }
  readChatUsage(chunk, report);
}

/** A chunk's or a whole answer's `usage` (Groq's streams: `x_groq.usage`). */
export function readChatUsage(chunk: JsonObject, report: StreamReport): void {
  const usage = objectAt(chunk, 'usage') ?? objectAt(objectAt(chunk, 'x_groq'), 'usage');
  if (usage !== undefined) report.usage(usage.prompt_tokens, usage.completion_tokens);
}

export const openaiChat: Format = {
  name: 'openai_chat',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const parser = createSseParser(
      {
        onEvent({ type, buffer, start, end, incomplete }) {
          if (start === end && !incomplete) return;
          report.event();
          if (incomplete) return;
          if (type === 'error') {
            const body = parseObject(buffer, start, end);
            report.streamError(errorTypeOf(body?.error ?? body));
            return;
          }
          if (bytesEqual(buffer, start, end, DONE)) {
            report.terminal();
            return;
          }
          // Only the kinds not seen yet, usage and errors can still change anything: after the first
          // text most chunks end here, after one pass over their bytes and no JSON.parse.
          const wanted = ALWAYS | report.unseen(KIND_KEYS);
          if (!scanKeys(buffer, start, end, KEYS, wanted)) return;
          if (readPlainly(buffer, start, end, wanted, report)) return;
          const chunk = parseObject(buffer, start, end);
          if (chunk !== undefined) readChunk(chunk, report);
        },
        onIssue: () => report.oversizedLine(),
      },
      options,
    );
    return { feed: parser.feed, end: parser.reset };
  },
};

/**
 * For the test that holds `readPlainly` to `readChunk`: both readers, and what is wanted of an event
 * before the first text and after it.
 */
export const openaiChatReaders = {
  readPlainly,
  readChunk,
  wantedBeforeText: ALWAYS | KIND_KEYS.text | KIND_KEYS.reasoning | KIND_KEYS.tool_call,
  wantedAfterText: ALWAYS,
};
