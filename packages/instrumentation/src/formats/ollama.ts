import {
  arrayAt,
  isNonEmptyString,
  type JsonObject,
  jsonKeys,
  objectAt,
  parseObject,
  scanKeys,
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

const KEYS = jsonKeys(['content', 'response', 'thinking', 'tool_calls', 'done'], ['error']);
const KIND_KEYS = {
  text: KEYS.mask('content', 'response'),
  reasoning: KEYS.mask('thinking'),
  tool_call: KEYS.mask('tool_calls'),
};
// `done: false` is not worth a look, `done: true` is.
const ALWAYS = KEYS.mask('done', 'error');

function readRecord(record: JsonObject, report: StreamReport): void {
  if (record.error !== undefined && record.error !== null) report.streamError(UNTYPED_STREAM_ERROR);
  const message = objectAt(record, 'message');
  if (isNonEmptyString(message?.thinking) || isNonEmptyString(record.thinking)) report.output('reasoning');
  if (isNonEmptyString(message?.content) || isNonEmptyString(record.response)) report.output('text');
  if ((arrayAt(message, 'tool_calls')?.length ?? 0) > 0) report.output('tool_call');
  if (record.done === true) {
    readOllamaUsage(record, report);
    report.terminal();
  }
}

/** The counts of a stream's last line (`done: true`), or of a whole JSON answer. */
export function readOllamaUsage(record: JsonObject, report: StreamReport): void {
  report.usage(record.prompt_eval_count, record.eval_count);
}

export const ollama: Format = {
  name: 'ollama',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const parser = createNdjsonParser(
      {
        onRecord(buffer, start, end) {
          report.event();
          if (!scanKeys(buffer, start, end, KEYS, ALWAYS | report.unseen(KIND_KEYS))) return;
          const parsed = parseObject(buffer, start, end);
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
