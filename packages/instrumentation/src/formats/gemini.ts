import type { Buffer } from 'node:buffer';
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
 * Gemini `streamGenerateContent?alt=sse` (Gemini API and Vertex AI): every event is a whole
 * GenerateContentResponse. (Without `alt=sse` the body is one JSON array sent as `application/json`:
 * not a stream `selectFormat` picks.)
 *
 * - text: a part with non-empty `text` and no `thought: true`.
 * - reasoning: a part with `thought: true` and non-empty `text` (a thought summary).
 * - tool_call: a `functionCall` part — Gemini sends each call whole, arguments included — or an
 *   `executableCode` part (code the model wrote for the code-execution tool). A `thoughtSignature`
 *   alone is not output.
 * - usage: `usageMetadata.promptTokenCount`; output = `candidatesTokenCount` + `thoughtsTokenCount`.
 *   Gemini repeats a running `usageMetadata` in every event; only the events parsed for another
 *   reason report it, and the final one (with `finishReason`) always is.
 * - terminal: a candidate with a `finishReason`, or `promptFeedback.blockReason` (a blocked prompt
 *   ends the stream with no candidate). With `candidateCount` > 1, the first finished candidate.
 * - errors: `{"error": {"status": "RESOURCE_EXHAUSTED", "code": 429, …}}` typed by `status`, else `code`.
 */

const TEXT = jsonKey('text');
const THOUGHT = jsonKey('thought');
const FUNCTION_CALL = jsonKey('functionCall');
const EXECUTABLE_CODE = jsonKey('executableCode');
const FINISH_REASON = jsonKey('finishReason');
const BLOCK_REASON = jsonKey('blockReason');
const ERROR = jsonKey('error');

function worthParsing(data: Buffer, report: StreamReport): boolean {
  return (
    (!report.has('text') && hasValue(data, TEXT)) ||
    (!report.has('reasoning') && hasValue(data, THOUGHT)) ||
    (!report.has('tool_call') && (hasValue(data, FUNCTION_CALL) || hasValue(data, EXECUTABLE_CODE))) ||
    hasValue(data, FINISH_REASON) ||
    hasValue(data, BLOCK_REASON) ||
    contains(data, ERROR)
  );
}

function readParts(parts: readonly unknown[], report: StreamReport): void {
  for (const part of parts) {
    if (!isObject(part)) continue;
    if (isNonEmptyString(part.text)) report.output(part.thought === true ? 'reasoning' : 'text');
    if (isObject(part.functionCall) || isObject(part.executableCode)) report.output('tool_call');
  }
}

function readResponse(response: JsonObject, report: StreamReport): void {
  const error = objectAt(response, 'error');
  if (error !== undefined) report.streamError(error.status ?? error.code);
  let finished = false;
  for (const candidate of arrayAt(response, 'candidates') ?? []) {
    const parts = arrayAt(objectAt(candidate, 'content'), 'parts');
    if (parts !== undefined) readParts(parts, report);
    if (isObject(candidate) && isNonEmptyString(candidate.finishReason)) finished = true;
  }
  if (isNonEmptyString(objectAt(response, 'promptFeedback')?.blockReason)) finished = true;
  const usage = objectAt(response, 'usageMetadata');
  if (usage !== undefined) {
    const candidates = usage.candidatesTokenCount;
    const thoughts = usage.thoughtsTokenCount;
    const output =
      typeof candidates === 'number' || typeof thoughts === 'number'
        ? (typeof candidates === 'number' ? candidates : 0) + (typeof thoughts === 'number' ? thoughts : 0)
        : undefined;
    report.usage(usage.promptTokenCount, output);
  }
  if (finished) report.terminal();
}

export const gemini: Format = {
  name: 'gemini',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const parser = createSseParser(
      {
        onEvent({ data, incomplete }) {
          if (data.length === 0 && !incomplete) return;
          report.event();
          if (incomplete || !worthParsing(data, report)) return;
          const response = parseObject(data);
          if (response !== undefined) readResponse(response, report);
        },
        onIssue: report.oversizedLine,
      },
      options,
    );
    return { feed: parser.feed, end: parser.reset };
  },
};
