import type { OutputKind } from '../names.ts';
import { isNonEmptyString, type JsonObject, objectAt, parseObject } from './json-scan.ts';
import { createSseParser } from './sse-parser.ts';
import type { Format } from './stream-observer.ts';
import { createStreamReport, type StreamReport } from './stream-report.ts';

/**
 * Cohere's own Chat API (`POST /v2/chat` with `"stream": true`), as `cohere-ai`'s `chatStream`,
 * `@ai-sdk/cohere` and `@langchain/cohere` call it: named events (`event: content-delta` +
 * `data: {"type":"content-delta", …}`). The event name decides, so most events are never parsed; a
 * server that leaves the names out gets the same answers from the data's `type`.
 *
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
 */

const CONTENT_KINDS: ReadonlyArray<readonly [string, OutputKind]> = [
  ['text', 'text'],
  ['thinking', 'reasoning'],
];

/** `finish_reason`s that end a generation that failed, not one that stopped. */
const FAILED_FINISH = new Set(['ERROR', 'TIMEOUT']);

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

function readEnd(body: JsonObject | undefined, report: StreamReport): void {
  const delta = objectAt(body, 'delta');
  const usage = objectAt(delta, 'usage');
  const counts = objectAt(usage, 'tokens') ?? objectAt(usage, 'billed_units');
  if (counts !== undefined) report.usage(counts.input_tokens, counts.output_tokens);
  const reason = delta?.finish_reason;
  if (typeof reason === 'string' && FAILED_FINISH.has(reason)) report.streamError(reason);
  report.terminal();
}

function errorEventType(body: JsonObject | undefined): unknown {
  if (body === undefined) return undefined;
  const nested = objectAt(body, 'error');
  return body.code ?? nested?.code ?? nested?.type;
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
          let body: JsonObject | undefined;
          let type = event.type;
          if (type === 'message') {
            body = parseObject(buffer, start, end);
            if (body === undefined || typeof body.type !== 'string') return;
            type = body.type;
          }
          switch (type) {
            case 'content-delta':
            case 'content-start':
              if (report.has('text')) return; // the last milestone: nothing here matters after it
              readContent(body ?? parseObject(buffer, start, end), report);
              return;
            case 'tool-plan-delta':
              if (report.has('reasoning')) return;
              if (isNonEmptyString(message(body ?? parseObject(buffer, start, end))?.tool_plan)) {
                report.output('reasoning');
              }
              return;
            case 'tool-call-delta':
            case 'tool-call-start':
              if (report.has('tool_call')) return;
              readToolCall(body ?? parseObject(buffer, start, end), report);
              return;
            case 'message-end':
              readEnd(body ?? parseObject(buffer, start, end), report);
              return;
            case 'error':
              report.streamError(errorEventType(body ?? parseObject(buffer, start, end)));
              return;
          }
        },
        onIssue: () => report.oversizedLine(),
      },
      options,
    );
    return { feed: parser.feed, end: parser.reset };
  },
};
