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

const KEYS = jsonKeys(
  ['text', 'thought', 'functionCall', 'executableCode', 'finishReason', 'blockReason', 'error'],
  [],
);
// A thought is a text part too: while reasoning is unseen, so is a text part worth a look.
const KIND_KEYS = {
  text: KEYS.mask('text'),
  reasoning: KEYS.mask('thought'),
  tool_call: KEYS.mask('functionCall', 'executableCode'),
};
const ALWAYS = KEYS.mask('finishReason', 'blockReason', 'error');

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
  readUsageMetadata(response, report);
  if (finished) report.terminal();
}

/** A response's `usageMetadata`: output is the candidates' tokens and the thoughts'. */
export function readUsageMetadata(response: JsonObject, report: StreamReport): void {
  const usage = objectAt(response, 'usageMetadata');
  if (usage === undefined) return;
  const candidates = usage.candidatesTokenCount;
  const thoughts = usage.thoughtsTokenCount;
  const output =
    typeof candidates === 'number' || typeof thoughts === 'number'
      ? (typeof candidates === 'number' ? candidates : 0) + (typeof thoughts === 'number' ? thoughts : 0)
      : undefined;
  report.usage(usage.promptTokenCount, output);
}

export const gemini: Format = {
  name: 'gemini',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const parser = createSseParser(
      {
        onEvent({ buffer, start, end, incomplete }) {
          if (start === end && !incomplete) return;
          report.event();
          // The running `usageMetadata` in every event is not a reason to parse it.
          if (incomplete || !scanKeys(buffer, start, end, KEYS, ALWAYS | report.unseen(KIND_KEYS))) return;
          const response = parseObject(buffer, start, end);
          if (response !== undefined) readResponse(response, report);
        },
        onIssue: () => report.oversizedLine(),
      },
      options,
    );
    return { feed: parser.feed, end: parser.reset };
  },
};
