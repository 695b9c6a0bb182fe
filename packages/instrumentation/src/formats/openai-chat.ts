import { Buffer } from 'node:buffer';
import {
  arrayAt,
  contains,
  hasValue,
  isNonEmptyString,
  isObject,
  type JsonObject,
  jsonKey,
  objectAt,
  parseObject,
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
const CONTENT = jsonKey('content');
const REASONING_CONTENT = jsonKey('reasoning_content');
const REASONING = jsonKey('reasoning');
const THINKING = jsonKey('thinking');
const TOOL_CALLS = jsonKey('tool_calls');
const FUNCTION_CALL = jsonKey('function_call');
const USAGE = jsonKey('usage');
// As a key (`"error": {…}`) or a value (`"object": "error"`, OpenRouter's `"finish_reason": "error"`).
const ERROR = jsonKey('error');

/**
 * Whether a chunk can still change anything: the kinds not yet seen, usage, errors. After the first
 * text this is a handful of byte searches per chunk and most chunks are never parsed.
 */
function worthParsing(data: Buffer, report: StreamReport): boolean {
  return (
    (!report.has('text') && hasValue(data, CONTENT)) ||
    (!report.has('reasoning') &&
      (hasValue(data, REASONING_CONTENT) || hasValue(data, REASONING) || hasValue(data, THINKING))) ||
    (!report.has('tool_call') && (hasValue(data, TOOL_CALLS) || hasValue(data, FUNCTION_CALL))) ||
    hasValue(data, USAGE) ||
    contains(data, ERROR)
  );
}

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

function readChunk(chunk: JsonObject, report: StreamReport): void {
  if (chunk.error !== undefined && chunk.error !== null) report.streamError(errorTypeOf(chunk.error));
  else if (chunk.object === 'error') report.streamError(chunk.type ?? chunk.code);
  for (const choice of arrayAt(chunk, 'choices') ?? []) {
    const delta = objectAt(choice, 'delta');
    if (delta !== undefined) readDelta(delta, report);
  }
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
        onEvent({ type, data, incomplete }) {
          if (data.length === 0 && !incomplete) return;
          report.event();
          if (incomplete) return;
          if (type === 'error') {
            const body = parseObject(data);
            report.streamError(errorTypeOf(body?.error ?? body));
            return;
          }
          if (data.length === DONE.length && data.equals(DONE)) {
            report.terminal();
            return;
          }
          if (!worthParsing(data, report)) return;
          const chunk = parseObject(data);
          if (chunk !== undefined) readChunk(chunk, report);
        },
        onIssue: report.oversizedLine,
      },
      options,
    );
    return { feed: parser.feed, end: parser.reset };
  },
};
