import {
  type ErrorScript,
  type FinishReason,
  type Piece,
  type ProviderErrorType,
  scriptUsage,
  type Usage,
} from './script.ts';
import { contentOf } from './script-content.ts';
import { type LineEnding, sseComment, sseEvent } from './sse.ts';
import { type HttpReply, retryHeaders, type WireWriter, type WriteContext } from './wire-format.ts';

/**
 * OpenAI Chat Completions streaming (`POST /v1/chat/completions`, `stream: true`): one
 * `chat.completion.chunk` per `data:` line, ended by `data: [DONE]`. The same bytes are what
 * compatible servers (vLLM, DeepSeek, Groq, Mistral, OpenRouter) send, with the dialect's differences.
 */
export interface OpenAIChatWriterOptions {
  /**
   * Field of a reasoning delta: `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter).
   * Default `reasoning_content`.
   */
  readonly reasoningField?: 'reasoning_content' | 'reasoning';
  /** Text of the SSE comment a heartbeat writes. Default `keep-alive`. */
  readonly heartbeatComment?: string;
  /** Send the usage chunk even when the request did not ask for it (OpenRouter does). Default false. */
  readonly alwaysIncludeUsage?: boolean;
  /** Line ending of the framing. Default `\n`. */
  readonly lineEnding?: LineEnding;
}

/** OpenRouter: `reasoning` deltas, `: OPENROUTER PROCESSING` heartbeats, usage always reported. */
export const OPENROUTER_DIALECT: OpenAIChatWriterOptions = {
  reasoningField: 'reasoning',
  heartbeatComment: 'OPENROUTER PROCESSING',
  alwaysIncludeUsage: true,
};

const FINISH: Readonly<Record<FinishReason, string>> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  length: 'length',
};

const STREAM_ERROR: Readonly<
  Record<ProviderErrorType, { type: string; code: string | null; message: string }>
> = {
  overloaded: {
    type: 'server_error',
    code: null,
    message: 'The server is overloaded. Please try again later.',
  },
  internal: {
    type: 'server_error',
    code: null,
    message: 'The server had an error while processing your request.',
  },
  rate_limited: {
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached for requests.',
  },
};

export function openaiChatWriter(options: OpenAIChatWriterOptions = {}): WireWriter<string> {
  const reasoningField = options.reasoningField ?? 'reasoning_content';
  const heartbeat = options.heartbeatComment ?? 'keep-alive';
  const eol = options.lineEnding ?? '\n';

  return {
    format: 'openai-chat',
    streamHeaders: (context) => ({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': `req_${context.id}`,
    }),
    render(script, context) {
      const includeUsage = context.includeUsage || options.alwaysIncludeUsage === true;
      const head = {
        id: `chatcmpl-${context.id}`,
        object: 'chat.completion.chunk',
        created: Math.floor(context.createdAtMs / 1000),
        model: context.model,
        system_fingerprint: 'fp_lanewatch',
      };
      // With include_usage every chunk carries `usage: null` until the usage chunk (OpenAI API reference).
      const chunk = (delta: object, finishReason: string | null = null) =>
        sseEvent(
          JSON.stringify({
            ...head,
            choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
            ...(includeUsage ? { usage: null } : {}),
          }),
          eol,
        );
      const openedCalls = new Set<number>();
      const write = (piece: Piece): string => {
        switch (piece.kind) {
          case 'start':
            return chunk({ role: 'assistant', content: '', refusal: null });
          case 'reasoning':
            return chunk({ content: null, [reasoningField]: piece.text });
          case 'text':
            return chunk({ content: piece.text });
          case 'tool-call': {
            // The first delta of a call carries its id, type and name; later ones only argument text.
            const first = !openedCalls.has(piece.call);
            openedCalls.add(piece.call);
            const call = first
              ? {
                  index: piece.call,
                  id: `call_${context.id}_${piece.call}`,
                  type: 'function',
                  function: { name: piece.name, arguments: piece.args },
                }
              : { index: piece.call, function: { arguments: piece.args } };
            return chunk({ tool_calls: [call] });
          }
          case 'finish':
            return chunk({}, FINISH[piece.reason]);
          case 'usage': {
            if (!includeUsage) return '';
            return sseEvent(
              JSON.stringify({ ...head, choices: [], usage: chatUsage(scriptUsage(script)) }),
              eol,
            );
          }
          case 'done':
            return sseEvent('[DONE]', eol);
          case 'error': {
            const error = STREAM_ERROR[piece.errorType];
            return sseEvent(
              JSON.stringify({
                error: {
                  message: piece.message ?? error.message,
                  type: error.type,
                  param: null,
                  code: error.code,
                },
              }),
              eol,
            );
          }
          case 'heartbeat':
            return sseComment(heartbeat, eol);
          case 'reset':
          case 'hang':
            return '';
        }
      };
      return script.pieces.map(write);
    },
    complete(script, context) {
      const { blocks, finish } = contentOf(script);
      const joined = (kind: 'text' | 'reasoning') =>
        blocks.map((block) => (block.kind === kind ? block.text : '')).join('');
      const calls = blocks.flatMap((block) =>
        block.kind === 'tool-call'
          ? [
              {
                id: `call_${context.id}_${block.call}`,
                type: 'function',
                function: { name: block.name, arguments: block.args },
              },
            ]
          : [],
      );
      const text = joined('text');
      const reasoning = joined('reasoning');
      const body = {
        id: `chatcmpl-${context.id}`,
        object: 'chat.completion',
        created: Math.floor(context.createdAtMs / 1000),
        model: context.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text === '' && calls.length > 0 ? null : text,
              refusal: null,
              ...(reasoning ? { [reasoningField]: reasoning } : {}),
              ...(calls.length > 0 ? { tool_calls: calls } : {}),
            },
            logprobs: null,
            finish_reason: FINISH[finish ?? 'stop'],
          },
        ],
        usage: chatUsage(scriptUsage(script)),
        system_fingerprint: 'fp_lanewatch',
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': `req_${context.id}` },
        body: JSON.stringify(body),
      };
    },
    errorReply: (script, context) => openaiErrorReply(script, context),
  };
}

function chatUsage(usage: Usage): object {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}

/** OpenAI's error envelope `{ error: { message, type, param, code } }`, shared by the Responses API. */
export function openaiErrorReply(script: ErrorScript, context: WriteContext): HttpReply {
  const { type, code, message } = openaiErrorFor(script.status);
  return {
    status: script.status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': `req_${context.id}`,
      ...retryHeaders(script),
    },
    body: JSON.stringify({ error: { message: script.message ?? message, type, param: null, code } }),
  };
}

function openaiErrorFor(status: number): { type: string; code: string | null; message: string } {
  if (status === 401) {
    return { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' };
  }
  if (status === 429) {
    return { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests.' };
  }
  if (status === 503) {
    return {
      type: 'server_error',
      code: null,
      message: 'The engine is currently overloaded, please try again later.',
    };
  }
  if (status >= 500) {
    return {
      type: 'server_error',
      code: null,
      message: 'The server had an error while processing your request. Sorry about that!',
    };
  }
  return { type: 'invalid_request_error', code: null, message: 'Invalid request.' };
}
