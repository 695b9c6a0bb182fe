import type { Buffer } from 'node:buffer';
import {
  arrayAt,
  contains,
  hasValue,
  isNonEmptyString,
  type JsonObject,
  jsonKey,
  objectAt,
  parseObject,
} from './json-scan.ts';
import { createNdjsonParser } from './ndjson-parser.ts';
import type { Format } from './stream-observer.ts';
import { createStreamReport, type StreamReport, UNTYPED_STREAM_ERROR } from './stream-report.ts';

/**
 * Ollama's native streaming API, NDJSON: `/api/chat` (`message.content`, `message.thinking`,
 * `message.tool_calls`) and `/api/generate` (`response`, `thinking`). One detector reads both.
 *
 * - text: non-empty `message.content` or `response`.
 * - reasoning: non-empty `message.thinking` or `thinking`.
 * - tool_call: a non-empty `message.tool_calls` (Ollama sends each call whole, arguments included).
 * - terminal: `done: true`, whose record carries `prompt_eval_count` (input) and `eval_count` (output).
 * - errors: `{"error": "…"}`. The error is a sentence that may quote the prompt or the output, so it
 *   is never read: it is reported as `untyped`.
 */

const CONTENT = jsonKey('content');
const RESPONSE = jsonKey('response');
const THINKING = jsonKey('thinking');
const TOOL_CALLS = jsonKey('tool_calls');
const DONE = jsonKey('done');
const ERROR = jsonKey('error');

function worthParsing(record: Buffer, report: StreamReport): boolean {
  return (
    (!report.has('text') && (hasValue(record, CONTENT) || hasValue(record, RESPONSE))) ||
    (!report.has('reasoning') && hasValue(record, THINKING)) ||
    (!report.has('tool_call') && hasValue(record, TOOL_CALLS)) ||
    hasValue(record, DONE) ||
    contains(record, ERROR)
  );
}

function readRecord(record: JsonObject, report: StreamReport): void {
  if (record.error !== undefined && record.error !== null) report.streamError(UNTYPED_STREAM_ERROR);
  const message = objectAt(record, 'message');
  if (isNonEmptyString(message?.thinking) || isNonEmptyString(record.thinking)) report.output('reasoning');
  if (isNonEmptyString(message?.content) || isNonEmptyString(record.response)) report.output('text');
  if ((arrayAt(message, 'tool_calls')?.length ?? 0) > 0) report.output('tool_call');
  if (record.done === true) {
    report.usage(record.prompt_eval_count, record.eval_count);
    report.terminal();
  }
}

export const ollama: Format = {
  name: 'ollama',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const parser = createNdjsonParser(
      {
        onRecord(record) {
          report.event();
          if (!worthParsing(record, report)) return;
          const parsed = parseObject(record);
          if (parsed !== undefined) readRecord(parsed, report);
        },
        onIssue() {
          report.event(); // the skipped line was a record
          report.oversizedLine();
        },
      },
      options,
    );
    return { feed: parser.feed, end: parser.end };
  },
};
