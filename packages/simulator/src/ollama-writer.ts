import {
  type ErrorScript,
  type FinishReason,
  OUTPUT_KINDS,
  type Piece,
  type ProviderErrorType,
  type StreamScript,
  scheduleOf,
  scriptUsage,
} from './script.ts';
import { contentOf } from './script-content.ts';
import {
  type HttpReply,
  lastFragmentOfEachCall,
  retryHeaders,
  type WireWriter,
  type WriteContext,
  wholeCallArguments,
} from './wire-format.ts';

/**
 * Ollama NDJSON streaming (`POST /api/chat` and `/api/generate`, streaming by default): one JSON
 * object per `\n`-terminated line. Chat lines carry `message: {role, content, thinking?, tool_calls?}`,
 * generate lines `response` and `thinking`; tool calls arrive whole. The last line has `done: true`,
 * `done_reason` and the counts and durations (nanoseconds) — Ollama's terminal event and usage report.
 */
const DONE_REASON: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  tool_calls: 'stop',
  length: 'length',
};

const ERROR_MESSAGE: Readonly<Record<ProviderErrorType, string>> = {
  overloaded: 'server busy, please try again. maximum pending requests exceeded',
  internal: 'an error was encountered while running the model: unexpected EOF',
  rate_limited: 'too many requests',
};

export function ollamaWriter(): WireWriter<string> {
  return {
    format: 'ollama',
    streamHeaders: () => ({ 'content-type': 'application/x-ndjson' }),
    render: renderOllama,
    complete(script, context) {
      const chat = context.endpoint !== 'generate';
      const { blocks, finish } = contentOf(script);
      const joined = (kind: 'text' | 'reasoning') =>
        blocks.map((block) => (block.kind === kind ? block.text : '')).join('');
      const thinking = joined('reasoning');
      const calls = blocks.flatMap((block) =>
        block.kind === 'tool-call'
          ? [
              {
                function: {
                  name: block.name,
                  arguments: wholeCallArguments(block.args, block.call, 'ollama'),
                },
              },
            ]
          : [],
      );
      const { piecesAtMs, headersAtMs } = scheduleOf(script);
      const endMs = piecesAtMs.at(-1) ?? headersAtMs;
      const answer = chat
        ? {
            message: {
              role: 'assistant',
              content: joined('text'),
              ...(thinking ? { thinking } : {}),
              ...(calls.length > 0 ? { tool_calls: calls } : {}),
            },
          }
        : { response: joined('text'), ...(thinking ? { thinking } : {}) };
      const body = {
        model: context.model,
        created_at: new Date(context.createdAtMs + endMs).toISOString(),
        ...answer,
        ...doneFields(script, finish ?? 'stop', endMs, chat),
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify(body),
      };
    },
    errorReply: ollamaErrorReply,
  };
}

const NS_PER_MS = 1_000_000;

function renderOllama(script: StreamScript, context: WriteContext): string[] {
  const chat = context.endpoint !== 'generate';
  const { piecesAtMs } = scheduleOf(script);
  const lastFragment = lastFragmentOfEachCall(script);
  const args = new Map<number, string>();

  const line = (index: number, body: object) =>
    `${JSON.stringify({
      model: context.model,
      created_at: new Date(context.createdAtMs + (piecesAtMs[index] ?? 0)).toISOString(),
      ...body,
    })}\n`;
  const message = (fields: object) => ({ message: { role: 'assistant', content: '', ...fields } });

  const write = (piece: Piece, index: number): string => {
    switch (piece.kind) {
      case 'reasoning':
        return line(
          index,
          chat
            ? { ...message({ thinking: piece.text }), done: false }
            : { response: '', thinking: piece.text, done: false },
        );
      case 'text':
        return line(
          index,
          chat ? { ...message({ content: piece.text }), done: false } : { response: piece.text, done: false },
        );
      case 'tool-call': {
        const soFar = (args.get(piece.call) ?? '') + piece.args;
        args.set(piece.call, soFar);
        // /api/generate has no tool calls; /api/chat sends each call whole.
        if (!chat || lastFragment.get(piece.call) !== index) return '';
        const call = {
          function: { name: piece.name, arguments: wholeCallArguments(soFar, piece.call, 'ollama') },
        };
        return line(index, { ...message({ tool_calls: [call] }), done: false });
      }
      case 'finish': {
        const counts = doneFields(script, piece.reason, piecesAtMs[index] ?? 0, chat);
        return line(index, chat ? { ...message({}), ...counts } : { response: '', ...counts });
      }
      case 'error':
        return `${JSON.stringify({ error: piece.message ?? ERROR_MESSAGE[piece.errorType] })}\n`;
      case 'start':
      case 'usage':
      case 'done':
      case 'heartbeat':
      case 'reset':
      case 'hang':
        return '';
    }
  };
  return script.pieces.map(write);
}

/** Ollama's error body is `{ "error": "message" }`. */
export function ollamaErrorReply(script: ErrorScript, _context: WriteContext): HttpReply {
  const message =
    script.message ??
    (script.status === 401
      ? 'unauthorized'
      : script.status === 429
        ? 'too many requests'
        : script.status === 503
          ? ERROR_MESSAGE.overloaded
          : script.status >= 500
            ? ERROR_MESSAGE.internal
            : 'invalid request');
  return {
    status: script.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...retryHeaders(script) },
    body: JSON.stringify({ error: message }),
  };
}

/** The last line's fields: why it stopped, the counts, and durations in nanoseconds from the schedule. */
function doneFields(script: StreamScript, reason: FinishReason, atMs: number, chat: boolean): object {
  const usage = scriptUsage(script);
  const { headersAtMs, piecesAtMs } = scheduleOf(script);
  const firstOutput = script.pieces.findIndex((piece) => OUTPUT_KINDS.has(piece.kind));
  const firstOutputAtMs = firstOutput === -1 ? headersAtMs : (piecesAtMs[firstOutput] ?? headersAtMs);
  return {
    done: true,
    done_reason: DONE_REASON[reason],
    ...(chat ? {} : { context: [1, 2, 3] }),
    total_duration: Math.round(atMs * NS_PER_MS),
    load_duration: 0,
    prompt_eval_count: usage.inputTokens,
    prompt_eval_duration: Math.round(firstOutputAtMs * NS_PER_MS),
    eval_count: usage.outputTokens,
    eval_duration: Math.round(Math.max(0, atMs - firstOutputAtMs) * NS_PER_MS),
  };
}
