import type { Buffer } from 'node:buffer';
import { isNonEmptyString, type JsonObject, jsonKeys, objectAt, parseObject, scanKeys } from './json-scan.ts';
import type { Format } from './stream-observer.ts';
import type { StreamReport } from './stream-report.ts';
import { typedEventFormat } from './typed-events.ts';

/**
 * Anthropic Messages streaming: named events, each data carrying the same `type`. The event name
 * decides; `content_block_delta` is parsed only while the kind its delta type names is still unseen.
 *
 * - text: `content_block_delta` with a non-empty `text_delta`.
 * - reasoning: a non-empty `thinking_delta`. `signature_delta` (an opaque check of the thinking) and
 *   `citations_delta` are not output.
 * - tool_call: a non-empty `input_json_delta.partial_json` (the first one is often `""`);
 *   `content_block_start` of a `tool_use` block (its name) is not output yet.
 * - `ping`, `content_block_start` / `_stop`: events only.
 * - usage: `message_start` → `message.usage.input_tokens` plus the cache read and cache creation
 *   input tokens (Anthropic counts those apart; OpenAI and Gemini count them in); `message_delta` →
 *   `usage.output_tokens` (cumulative) and the same input sum when it is there. The `output_tokens`
 *   of `message_start` is a placeholder and is not reported.
 * - terminal: `message_stop`.
 * - errors: `event: error` with `error.type` (`overloaded_error`, `api_error`, …).
 */

// A delta's type is a string value, so these match as tokens. A delta has one type: once the one
// found belongs to a kind already seen, the rest of the event (its text) need not be read.
const DELTA_TYPES = jsonKeys([], ['text_delta', 'thinking_delta', 'input_json_delta']);
const KIND_DELTAS = {
  text: DELTA_TYPES.mask('text_delta'),
  reasoning: DELTA_TYPES.mask('thinking_delta'),
  tool_call: DELTA_TYPES.mask('input_json_delta'),
};
const ALL_DELTAS = KIND_DELTAS.text | KIND_DELTAS.reasoning | KIND_DELTAS.tool_call;

function worthParsingDelta(data: Buffer, start: number, end: number, report: StreamReport): boolean {
  const unseen = report.unseen(KIND_DELTAS);
  return unseen !== 0 && scanKeys(data, start, end, DELTA_TYPES, unseen, ALL_DELTAS & ~unseen);
}

function readDelta(delta: JsonObject | undefined, report: StreamReport): void {
  switch (delta?.type) {
    case 'text_delta':
      if (isNonEmptyString(delta.text)) report.output('text');
      return;
    case 'thinking_delta':
      if (isNonEmptyString(delta.thinking)) report.output('reasoning');
      return;
    case 'input_json_delta':
      if (isNonEmptyString(delta.partial_json)) report.output('tool_call');
      return;
  }
}

function inputTokens(usage: JsonObject): number | undefined {
  const counts = [usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens];
  if (typeof counts[0] !== 'number') return undefined;
  let sum = 0;
  for (const count of counts) if (typeof count === 'number') sum += count;
  return sum;
}

/** The `usage` of a `message_delta` event, or of a whole message answered as JSON. */
export function readMessageUsage(message: JsonObject | undefined, report: StreamReport): void {
  const usage = objectAt(message, 'usage');
  if (usage !== undefined) report.usage(inputTokens(usage), usage.output_tokens);
}

/**
 * One Anthropic Messages event of type `type` whose JSON is `buffer[start, end)`, `body` when it was
 * parsed already: what it reports. Shared with the event streams that carry these events
 * (Amazon Bedrock's `invoke-with-response-stream`).
 */
export function readAnthropicEvent(
  type: string,
  parsed: JsonObject | undefined,
  buffer: Buffer,
  start: number,
  end: number,
  report: StreamReport,
): void {
  let body = parsed;
  switch (type) {
    case 'content_block_delta':
      if (body === undefined && !worthParsingDelta(buffer, start, end, report)) return;
      body ??= parseObject(buffer, start, end);
      readDelta(objectAt(body, 'delta'), report);
      return;
    case 'message_start': {
      body ??= parseObject(buffer, start, end);
      const usage = objectAt(objectAt(body, 'message'), 'usage');
      if (usage !== undefined) report.usage(inputTokens(usage), undefined);
      return;
    }
    case 'message_delta': {
      body ??= parseObject(buffer, start, end);
      readMessageUsage(body, report);
      return;
    }
    case 'message_stop':
      report.terminal();
      return;
    case 'error':
      body ??= parseObject(buffer, start, end);
      report.streamError(objectAt(body, 'error')?.type);
      return;
  }
}

export const anthropicMessages: Format = typedEventFormat('anthropic_messages', readAnthropicEvent);
