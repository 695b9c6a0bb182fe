import type { Buffer } from 'node:buffer';
import type { OutputKind } from '../names.ts';
import { isNonEmptyString, type JsonObject, objectAt, parseObject } from './json-scan.ts';
import type { Format } from './stream-observer.ts';
import type { StreamReport } from './stream-report.ts';
import { typedEventFormat } from './typed-events.ts';

/**
 * OpenAI Responses API streaming: named events (`event: response.output_text.delta` + `data: {"type":
 * "response.output_text.delta", …}`), no `[DONE]`. The SSE event name decides, so most events are
 * never parsed; a server that leaves the names out gets the same answers from the data's `type`.
 *
 * - text: a non-empty `delta` of `response.output_text.delta`, or of `response.refusal.delta` (a
 *   refusal is visible text too).
 * - reasoning: `response.reasoning_summary_text.delta`, `response.reasoning_text.delta`.
 * - tool_call: the model writing a tool's input — `response.function_call_arguments.delta`,
 *   `response.custom_tool_call_input.delta`, `response.mcp_call_arguments.delta`,
 *   `response.code_interpreter_call_code.delta`. `response.output_item.added` for a function call
 *   (name, empty arguments) is not output yet, as in Chat Completions.
 * - terminal: `response.completed`, `response.incomplete`, `response.failed`, each with
 *   `response.usage.input_tokens` / `output_tokens`.
 * - errors: `response.failed` typed by `response.error.code`; an `error` event typed by its `code`
 *   (or a nested `error.code` / `error.type`).
 */

const OUTPUT_DELTAS: ReadonlyMap<string, OutputKind> = new Map<string, OutputKind>([
  ['response.output_text.delta', 'text'],
  ['response.refusal.delta', 'text'],
  ['response.reasoning_summary_text.delta', 'reasoning'],
  ['response.reasoning_text.delta', 'reasoning'],
  ['response.function_call_arguments.delta', 'tool_call'],
  ['response.custom_tool_call_input.delta', 'tool_call'],
  ['response.mcp_call_arguments.delta', 'tool_call'],
  ['response.code_interpreter_call_code.delta', 'tool_call'],
]);

/** An `error` event's type: its `code`, else a nested `error.code` or `error.type` (Cohere's too). */
export function errorEventType(body: JsonObject | undefined): unknown {
  if (body === undefined) return undefined;
  const nested = objectAt(body, 'error');
  return body.code ?? nested?.code ?? nested?.type;
}

/** A response object's `usage`: the one `response.completed` carries, or a whole JSON answer. */
export function readResponseUsage(response: JsonObject | undefined, report: StreamReport): void {
  const usage = objectAt(response, 'usage');
  if (usage !== undefined) report.usage(usage.input_tokens, usage.output_tokens);
}

/** One OpenAI Responses event of type `type`: what it reports. */
function readResponsesEvent(
  type: string,
  parsed: JsonObject | undefined,
  buffer: Buffer,
  start: number,
  end: number,
  report: StreamReport,
): void {
  let body = parsed;
  const kind = OUTPUT_DELTAS.get(type);
  if (kind !== undefined) {
    if (report.has(kind)) return;
    body ??= parseObject(buffer, start, end);
    if (isNonEmptyString(body?.delta)) report.output(kind);
    return;
  }
  switch (type) {
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed': {
      body ??= parseObject(buffer, start, end);
      const response = objectAt(body, 'response');
      readResponseUsage(response, report);
      if (type === 'response.failed') report.streamError(objectAt(response, 'error')?.code);
      report.terminal();
      return;
    }
    case 'error':
      body ??= parseObject(buffer, start, end);
      report.streamError(errorEventType(body));
      return;
  }
}

export const openaiResponses: Format = typedEventFormat('openai_responses', readResponsesEvent);
