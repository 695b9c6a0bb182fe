import {
  type ErrorScript,
  type FinishReason,
  type Piece,
  type ProviderErrorType,
  type StreamScript,
  scriptUsage,
  type Usage,
} from './script.ts';
import { contentOf } from './script-content.ts';
import { type LineEnding, sseEvent } from './sse.ts';
import {
  type HttpReply,
  retryHeaders,
  type WireWriter,
  type WriteContext,
  wholeCallArguments,
} from './wire-format.ts';

/**
 * Cohere's Chat API (`POST /v2/chat`, `stream: true`): named events whose JSON repeats the name in
 * `type`. `message-start`; per content block `content-start`, `content-delta`…, `content-end`
 * (thinking, then text, each at `delta.message.content`); per tool call `tool-call-start` (its id and
 * name), `tool-call-delta`… (`delta.message.tool_calls.function.arguments`), `tool-call-end`; and
 * `message-end` with the finish reason and the usage, the last event (the `finish` piece). There is
 * no `[DONE]`, so the `done` piece writes nothing, and no keep-alive. A generation that fails
 * mid-stream ends with `message-end`, `finish_reason: "ERROR"` and the error's text in `delta.error`.
 */
export interface CohereWriterOptions {
  readonly lineEnding?: LineEnding;
}

export const COHERE_FINISH_REASON: Readonly<Record<FinishReason, string>> = {
  stop: 'COMPLETE',
  tool_calls: 'TOOL_CALL',
  length: 'MAX_TOKENS',
};

const ERROR_TEXT: Readonly<Record<ProviderErrorType, string>> = {
  overloaded: 'the model is overloaded, please try again later',
  internal: 'internal server error, this has been reported to our developers',
  rate_limited: 'too many requests, please slow down',
};

type Block = { readonly kind: 'thinking' | 'text' } | { readonly kind: 'tool'; readonly call: number };

export function cohereWriter(options: CohereWriterOptions = {}): WireWriter<string> {
  const eol = options.lineEnding ?? '\n';
  return {
    format: 'cohere',
    streamHeaders: (context) => ({
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-trace-id': context.id,
    }),
    render: (script, context) =>
      cohereEvents(script, context).map((events) =>
        events.map((event) => sseEvent(JSON.stringify(event), eol, event.type)).join(''),
      ),
    complete: (script, context) => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'x-trace-id': context.id },
      body: JSON.stringify(cohereResponse(script, context)),
    }),
    errorReply: cohereErrorReply,
  };
}

interface CohereEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

function usageOf(usage: Usage): object {
  const counts = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens };
  return { billed_units: counts, tokens: counts };
}

/** The events each piece of the script writes, in order; none where the piece has no event. */
function cohereEvents(script: StreamScript, context: WriteContext): CohereEvent[][] {
  const usage = usageOf(scriptUsage(script));
  const event = (type: string, body: object = {}): CohereEvent => ({ type, ...body });
  let started = false;
  let ended = false;
  let block: Block | undefined;
  let contentIndex = -1;
  let toolIndex = -1;

  const start = (): CohereEvent[] => {
    if (started) return [];
    started = true;
    const message = { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] };
    return [{ id: context.id, ...event('message-start', { delta: { message } }) }];
  };

  const close = (): CohereEvent[] => {
    const open = block;
    block = undefined;
    if (open === undefined) return [];
    return open.kind === 'tool'
      ? [event('tool-call-end', { index: toolIndex })]
      : [event('content-end', { index: contentIndex })];
  };

  const openContent = (kind: 'thinking' | 'text'): CohereEvent[] => {
    if (block?.kind === kind) return [];
    const out = [...start(), ...close()];
    block = { kind };
    contentIndex++;
    const content = kind === 'thinking' ? { type: 'thinking', thinking: '' } : { type: 'text', text: '' };
    return [...out, event('content-start', { index: contentIndex, delta: { message: { content } } })];
  };

  const content = (body: object) =>
    event('content-delta', { index: contentIndex, delta: { message: { content: body } } });

  const end = (finishReason: string, error?: string): CohereEvent[] => {
    if (ended) return [];
    ended = true;
    const delta =
      error === undefined
        ? { finish_reason: finishReason, usage }
        : { finish_reason: finishReason, error, usage };
    return [...start(), ...close(), event('message-end', { delta })];
  };

  const write = (piece: Piece): CohereEvent[] => {
    switch (piece.kind) {
      case 'start':
        return start();
      case 'reasoning':
        return [...openContent('thinking'), content({ thinking: piece.text })];
      case 'text':
        return [...openContent('text'), content({ text: piece.text })];
      case 'tool-call': {
        if (block?.kind === 'tool' && block.call === piece.call) {
          const tool_calls = { function: { arguments: piece.args } };
          return [event('tool-call-delta', { index: toolIndex, delta: { message: { tool_calls } } })];
        }
        const out = [...start(), ...close()];
        block = { kind: 'tool', call: piece.call };
        toolIndex++;
        const tool_calls = {
          id: `${piece.name}_${context.id}_${piece.call}`,
          type: 'function',
          function: { name: piece.name, arguments: '' },
        };
        const delta = { message: { tool_calls: { function: { arguments: piece.args } } } };
        return [
          ...out,
          event('tool-call-start', { index: toolIndex, delta: { message: { tool_calls } } }),
          event('tool-call-delta', { index: toolIndex, delta }),
        ];
      }
      case 'finish':
        return end(COHERE_FINISH_REASON[piece.reason]);
      case 'error':
        return end('ERROR', piece.message ?? ERROR_TEXT[piece.errorType]);
      case 'usage':
      case 'done':
      case 'heartbeat':
      case 'reset':
      case 'hang':
        return [];
    }
  };
  return script.pieces.map(write);
}

/** The whole response of a non-streaming `/v2/chat` call. */
function cohereResponse(script: StreamScript, context: WriteContext): object {
  const { blocks, finish } = contentOf(script);
  const content: object[] = [];
  const toolCalls: object[] = [];
  for (const block of blocks) {
    if (block.kind === 'reasoning') content.push({ type: 'thinking', thinking: block.text });
    else if (block.kind === 'text') content.push({ type: 'text', text: block.text });
    else {
      toolCalls.push({
        id: `${block.name}_${context.id}_${block.call}`,
        type: 'function',
        function: { name: block.name, arguments: block.args },
      });
    }
  }
  return {
    id: context.id,
    finish_reason: COHERE_FINISH_REASON[finish ?? 'stop'],
    message: {
      role: 'assistant',
      content,
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    },
    usage: usageOf(scriptUsage(script)),
  };
}

/** Cohere's error body: `{ id, message }`, the status saying what kind of error it is. */
export function cohereErrorReply(script: ErrorScript, context: WriteContext): HttpReply {
  return {
    status: script.status,
    headers: { 'content-type': 'application/json', 'x-trace-id': context.id, ...retryHeaders(script) },
    body: JSON.stringify({ id: context.id, message: script.message ?? messageFor(script.status) }),
  };
}

function messageFor(status: number): string {
  switch (status) {
    case 401:
      return 'invalid api token';
    case 404:
      return 'model not found';
    case 429:
      return ERROR_TEXT.rate_limited;
    default:
      return status >= 500 ? ERROR_TEXT.internal : 'invalid request';
  }
}

/**
 * Cohere's Chat API v1 (`POST /v1/chat`, `stream: true`), as `CohereClient.chatStream` and
 * LangChain's `ChatCohere` call it: JSON lines (`application/stream+json`), each with an
 * `event_type`; asked for `text/event-stream` (`Accept`), the same objects as server-sent events
 * named by their `event_type`. `stream-start`; `text-generation` per text delta; the tool plan and each tool call's
 * parameters as `tool-calls-chunk` (`text`, then `tool_call_delta` with the call's `index`, its
 * `name` on the first fragment and the `parameters` fragment), then the whole calls in
 * `tool-calls-generation` before the end; `stream-end` last, with the finish reason and the whole
 * `response` (`text`, `finish_reason`, `tool_calls`, `meta.billed_units` and `meta.tokens`). There
 * is no thinking in v1: a `reasoning` piece is the tool plan. An in-stream error ends the stream with
 * `finish_reason: "ERROR"`.
 */
export function cohereV1Writer(): WireWriter<string> {
  return {
    format: 'cohere-v1',
    streamHeaders: (context): Record<string, string> =>
      context.acceptsEventStream
        ? { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-trace-id': context.id }
        : { 'content-type': 'application/stream+json', 'x-trace-id': context.id },
    render: (script, context) =>
      cohereV1Lines(script, context).map((lines) =>
        lines
          .map((line) =>
            context.acceptsEventStream
              ? sseEvent(JSON.stringify(line), '\n', line.event_type)
              : `${JSON.stringify(line)}\n`,
          )
          .join(''),
      ),
    complete: (script, context) => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'x-trace-id': context.id },
      body: JSON.stringify(
        cohereV1Response(script, context, COHERE_V1_FINISH[contentOf(script).finish ?? 'stop']),
      ),
    }),
    errorReply: cohereErrorReply,
  };
}

const COHERE_V1_FINISH: Readonly<Record<FinishReason, string>> = {
  stop: 'COMPLETE',
  tool_calls: 'COMPLETE',
  length: 'MAX_TOKENS',
};

function cohereV1Response(script: StreamScript, context: WriteContext, finishReason: string): object {
  const { blocks } = contentOf(script);
  const usage = usageOf(scriptUsage(script));
  let text = '';
  const toolCalls: object[] = [];
  for (const block of blocks) {
    if (block.kind === 'text') text += block.text;
    if (block.kind === 'tool-call') {
      toolCalls.push({
        name: block.name,
        parameters: wholeCallArguments(block.args, block.call, 'cohere-v1'),
      });
    }
  }
  return {
    response_id: `r_${context.id}`,
    text,
    generation_id: context.id,
    chat_history: [],
    finish_reason: finishReason,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    meta: { api_version: { version: '1' }, ...usage },
  };
}

interface CohereV1Line {
  readonly event_type: string;
  readonly [field: string]: unknown;
}

function cohereV1Lines(script: StreamScript, context: WriteContext): CohereV1Line[][] {
  const line = (event_type: string, body: object = {}): CohereV1Line => ({
    is_finished: false,
    event_type,
    ...body,
  });
  const calls = new Map<number, { name: string; args: string }>();
  let started = false;
  let ended = false;
  const start = (): CohereV1Line[] => {
    if (started) return [];
    started = true;
    return [line('stream-start', { generation_id: context.id })];
  };
  const end = (finishReason: string): CohereV1Line[] => {
    if (ended) return [];
    ended = true;
    const whole = [...calls.entries()].map(([call, { name, args }]) => ({
      name,
      parameters: wholeCallArguments(args, call, 'cohere-v1'),
    }));
    const generation = whole.length > 0 ? [line('tool-calls-generation', { tool_calls: whole })] : [];
    const response = cohereV1Response(script, context, finishReason);
    return [
      ...start(),
      ...generation,
      { is_finished: true, event_type: 'stream-end', response, finish_reason: finishReason },
    ];
  };
  const write = (piece: Piece): CohereV1Line[] => {
    switch (piece.kind) {
      case 'start':
        return start();
      case 'reasoning':
        return [...start(), line('tool-calls-chunk', { text: piece.text })];
      case 'text':
        return [...start(), line('text-generation', { text: piece.text })];
      case 'tool-call': {
        const open = calls.get(piece.call);
        calls.set(piece.call, { name: piece.name, args: (open?.args ?? '') + piece.args });
        const delta =
          open === undefined
            ? { index: piece.call, name: piece.name, parameters: piece.args }
            : { index: piece.call, parameters: piece.args };
        return [...start(), line('tool-calls-chunk', { tool_call_delta: delta })];
      }
      case 'finish':
        return end(COHERE_V1_FINISH[piece.reason]);
      case 'error':
        return end('ERROR');
      case 'usage':
      case 'done':
      case 'heartbeat':
      case 'reset':
      case 'hang':
        return [];
    }
  };
  return script.pieces.map(write);
}
