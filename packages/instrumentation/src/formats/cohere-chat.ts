import type { Buffer } from 'node:buffer';
import type { OutputKind } from '../names.ts';
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
import { errorEventType } from './openai-responses.ts';
import { createSseParser } from './sse-parser.ts';
import type { Format } from './stream-observer.ts';
import { createStreamReport, type StreamReport } from './stream-report.ts';

/**
 * Cohere's own Chat API, as `cohere-ai`, `@ai-sdk/cohere` and `@langchain/cohere` call it. One
 * detector reads both versions, over SSE or as JSON lines.
 *
 * v2 (`POST /v2/chat` with `"stream": true`): named events (`event: content-delta` + `data:
 * {"type":"content-delta", …}`) when the client asks for `text/event-stream`, as `cohere-ai`'s
 * `chatStream` does; the same objects one per line when it comes as NDJSON. The event name decides
 * (the data's `type` without one), so most events are never parsed.
 * - text: a non-empty `delta.message.content.text` of `content-delta` (or of `content-start`).
 * - reasoning: a non-empty `delta.message.content.thinking` (reasoning models), and the tool plan
 *   a model writes before calling tools (`tool-plan-delta`, `delta.message.tool_plan`): the model
 *   explaining what it will do, not the answer.
 * - tool_call: non-empty `delta.message.tool_calls.function.arguments` of `tool-call-delta` (or of
 *   `tool-call-start`, which names the tool and usually has no arguments yet).
 * - `message-start`, `content-end`, `tool-call-end`, `citation-start` / `-end`: events only.
 * - terminal: `message-end`, with `delta.usage.tokens` (the model's own counts; `billed_units`
 *   when those are missing). A `finish_reason` of `ERROR` or `TIMEOUT` is an in-stream error of
 *   that type (lowercased); its `delta.error` text is never read.
 * - errors: an `error` event, typed by its `code` or nested `error.type` (`untyped` without).
 *
 * v1 (`POST /v1/chat`, as `CohereClient.chatStream` and LangChain's `ChatCohere` call it): JSON lines,
 * each with an `event_type`.
 * - text: a non-empty `text` of `text-generation`.
 * - reasoning: the tool plan, a non-empty `text` of `tool-calls-chunk` (or of its `tool_call_delta`)
 *   or of `tool-calls-generation`.
 * - tool_call: a non-empty `tool_call_delta.parameters` of `tool-calls-chunk`, or the whole
 *   `tool_calls` of `tool-calls-generation`.
 * - terminal: `stream-end`, with `response.meta.tokens` (else `billed_units`); a `finish_reason` of
 *   `ERROR`, `ERROR_TOXIC` or `ERROR_LIMIT` is an in-stream error of that type (lowercased). The
 *   whole answer and the conversation it carries are parsed once and never read.
 */

const CONTENT_KINDS: ReadonlyArray<readonly [string, OutputKind]> = [
  ['text', 'text'],
  ['thinking', 'reasoning'],
];

/** `finish_reason`s that end a generation that failed, not one that stopped. */
const FAILED_FINISH = new Set(['ERROR', 'TIMEOUT', 'ERROR_TOXIC', 'ERROR_LIMIT']);

function message(body: JsonObject | undefined): JsonObject | undefined {
  return objectAt(objectAt(body, 'delta'), 'message');
}

function readContent(body: JsonObject | undefined, report: StreamReport): void {
  const content = objectAt(message(body), 'content');
  if (content === undefined) return;
  for (const [key, kind] of CONTENT_KINDS) if (isNonEmptyString(content[key])) report.output(kind);
}

function readToolCall(body: JsonObject | undefined, report: StreamReport): void {
  const call = objectAt(message(body), 'tool_calls');
  if (isNonEmptyString(objectAt(call, 'function')?.arguments)) report.output('tool_call');
}

/** A usage object's `tokens`, else its `billed_units` (v2's `usage`, v1's `meta`). */
export function readCohereUsage(usage: JsonObject | undefined, report: StreamReport): void {
  const counts = objectAt(usage, 'tokens') ?? objectAt(usage, 'billed_units');
  if (counts !== undefined) report.usage(counts.input_tokens, counts.output_tokens);
}

/** The usage (`tokens`, else `billed_units`), a failed finish, and the terminal event. */
function readEnd(finishReason: unknown, usage: JsonObject | undefined, report: StreamReport): void {
  readCohereUsage(usage, report);
  if (typeof finishReason === 'string' && FAILED_FINISH.has(finishReason)) report.streamError(finishReason);
  report.terminal();
}

/**
 * One v2 event of type `type`, its JSON `buffer[start, end)` (`body` when parsed already). Returns
 * false for a type v2 does not have.
 */
function readV2Event(
  type: string,
  parsed: JsonObject | undefined,
  buffer: Buffer,
  start: number,
  end: number,
  report: StreamReport,
): boolean {
  const body = () => parsed ?? parseObject(buffer, start, end);
  switch (type) {
    case 'content-delta':
    case 'content-start':
      if (!report.has('text')) readContent(body(), report); // text is the last milestone
      return true;
    case 'tool-plan-delta':
      if (!report.has('reasoning') && isNonEmptyString(message(body())?.tool_plan)) {
        report.output('reasoning');
      }
      return true;
    case 'tool-call-delta':
    case 'tool-call-start':
      if (!report.has('tool_call')) readToolCall(body(), report);
      return true;
    case 'message-end': {
      const delta = objectAt(body(), 'delta');
      readEnd(delta?.finish_reason, objectAt(delta, 'usage'), report);
      return true;
    }
    case 'error':
      report.streamError(errorEventType(body()));
      return true;
    case 'message-start':
    case 'content-end':
    case 'tool-call-end':
    case 'citation-start':
    case 'citation-end':
      return true;
    default:
      return false;
  }
}

/** One v1 line, parsed, of `event_type` `type`. */
function readV1Event(type: string, body: JsonObject, report: StreamReport): void {
  switch (type) {
    case 'text-generation':
      if (isNonEmptyString(body.text)) report.output('text');
      return;
    case 'tool-calls-chunk': {
      const delta = objectAt(body, 'tool_call_delta');
      if (isNonEmptyString(body.text) || isNonEmptyString(delta?.text)) report.output('reasoning');
      if (isNonEmptyString(delta?.parameters)) report.output('tool_call');
      return;
    }
    case 'tool-calls-generation':
      if (isNonEmptyString(body.text)) report.output('reasoning');
      if ((arrayAt(body, 'tool_calls')?.length ?? 0) > 0) report.output('tool_call');
      return;
    case 'stream-end': {
      const response = objectAt(body, 'response');
      readEnd(body.finish_reason ?? response?.finish_reason, objectAt(response, 'meta'), report);
      return;
    }
  }
}

/** A parsed object of either version, by its `type` (v2) or its `event_type` (v1). */
function readObject(
  body: JsonObject,
  buffer: Buffer,
  start: number,
  end: number,
  report: StreamReport,
): void {
  if (typeof body.type === 'string' && readV2Event(body.type, body, buffer, start, end, report)) return;
  if (typeof body.event_type === 'string') readV1Event(body.event_type, body, report);
}

export const cohereChat: Format = {
  name: 'cohere_chat',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const parser = createSseParser(
      {
        onEvent(event) {
          const { buffer, start, end } = event;
          if (start === end && !event.incomplete) return;
          report.event();
          if (event.incomplete) return;
          if (event.type !== 'message' && readV2Event(event.type, undefined, buffer, start, end, report))
            return;
          // An unnamed event (a proxy that drops the names), or a name v2 does not have: its data decides.
          const body = parseObject(buffer, start, end);
          if (body !== undefined) readObject(body, buffer, start, end, report);
        },
        onIssue: () => report.oversizedLine(),
      },
      options,
    );
    return { feed: parser.feed, end: parser.reset };
  },
};

// After the first text, a line matters only if it ends the stream or reports an error: these
// values (or the `error` key) are found in its bytes without parsing the lines of text between.
const LINE_TOKENS = jsonKeys([], ['message-end', 'stream-end', 'error']);
const AFTER_TEXT = LINE_TOKENS.mask('message-end', 'stream-end', 'error');

/** The same API as JSON lines: v1 always, v2 when the client asks for JSON. Named `cohere_chat` too. */
export const cohereChatLines: Format = {
  name: 'cohere_chat',
  hasTerminal: true,
  createDetector(observer, options) {
    const report = createStreamReport(observer);
    const parser = createNdjsonParser(
      {
        onRecord(buffer, start, end) {
          report.event();
          if (report.has('text') && !scanKeys(buffer, start, end, LINE_TOKENS, AFTER_TEXT)) return;
          const body = parseObject(buffer, start, end);
          if (body !== undefined) readObject(body, buffer, start, end, report);
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
