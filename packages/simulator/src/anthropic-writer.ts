import {
  type ErrorScript,
  type FinishReason,
  type Piece,
  type ProviderErrorType,
  type StreamScript,
  scriptUsage,
} from './script.ts';
import { type ContentBlock, contentOf } from './script-content.ts';
import { type LineEnding, sseEvent } from './sse.ts';
import {
  type HttpReply,
  retryHeaders,
  type WireWriter,
  type WriteContext,
  wholeCallArguments,
} from './wire-format.ts';

/**
 * Anthropic Messages streaming (`POST /v1/messages`, `stream: true`): `message_start`, then per
 * content block `content_block_start` / `content_block_delta`… / `content_block_stop` (thinking with
 * `thinking_delta` and a closing `signature_delta`, text with `text_delta`, tool_use with
 * `input_json_delta`), `ping` keep-alives anywhere, `message_delta` with the stop reason and the usage,
 * and `message_stop`. Errors mid-stream arrive as `event: error` (`overloaded_error`, …).
 */
export interface AnthropicWriterOptions {
  readonly lineEnding?: LineEnding;
}

const STOP_REASON: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
};

const ERROR_TYPE: Readonly<Record<ProviderErrorType, { type: string; message: string }>> = {
  overloaded: { type: 'overloaded_error', message: 'Overloaded' },
  internal: { type: 'api_error', message: 'Internal server error' },
  rate_limited: {
    type: 'rate_limit_error',
    message: 'Number of request tokens has exceeded your rate limit.',
  },
};

type Block = { readonly kind: 'thinking' | 'text' } | { readonly kind: 'tool_use'; readonly call: number };

export function anthropicWriter(options: AnthropicWriterOptions = {}): WireWriter {
  const eol = options.lineEnding ?? '\n';
  return {
    format: 'anthropic',
    streamHeaders: (context) => ({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': `req_${context.id}`,
    }),
    render: (script, context) => renderAnthropic(script, context, eol),
    complete(script, context) {
      const { blocks, finish } = contentOf(script);
      const usage = scriptUsage(script);
      const blockOf = (block: ContentBlock, index: number): object => {
        switch (block.kind) {
          case 'reasoning':
            return { type: 'thinking', thinking: block.text, signature: `sig_${context.id}_${index}` };
          case 'text':
            return { type: 'text', text: block.text };
          case 'tool-call':
            return {
              type: 'tool_use',
              id: `toolu_${context.id}_${block.call}`,
              name: block.name,
              input: wholeCallArguments(block.args, block.call, 'anthropic'),
            };
        }
      };
      const content = blocks.map(blockOf);
      const body = {
        id: `msg_${context.id}`,
        type: 'message',
        role: 'assistant',
        model: context.model,
        content,
        stop_reason: STOP_REASON[finish ?? 'stop'],
        stop_sequence: null,
        usage: {
          input_tokens: usage.inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: usage.outputTokens,
        },
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'request-id': `req_${context.id}` },
        body: JSON.stringify(body),
      };
    },
    errorReply: anthropicErrorReply,
  };
}

function renderAnthropic(script: StreamScript, context: WriteContext, eol: LineEnding): string[] {
  const usage = scriptUsage(script);
  const event = (type: string, body: object) => sseEvent(JSON.stringify({ type, ...body }), eol, type);
  let started = false;
  let stopped = false;
  let block: Block | undefined;
  let blockIndex = -1;

  const start = () => {
    if (started) return '';
    started = true;
    return event('message_start', {
      message: {
        id: `msg_${context.id}`,
        type: 'message',
        role: 'assistant',
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    });
  };

  const close = () => {
    if (!block) return '';
    // A thinking block ends with its signature, which the API sends just before content_block_stop.
    const signature =
      block.kind === 'thinking'
        ? event('content_block_delta', {
            index: blockIndex,
            delta: { type: 'signature_delta', signature: `sig_${context.id}_${blockIndex}` },
          })
        : '';
    block = undefined;
    return signature + event('content_block_stop', { index: blockIndex });
  };

  const open = (next: Block, contentBlock: object) => {
    const same =
      block?.kind === next.kind &&
      (block.kind !== 'tool_use' || (next.kind === 'tool_use' && block.call === next.call));
    if (same) return '';
    const out = start() + close();
    block = next;
    blockIndex++;
    return out + event('content_block_start', { index: blockIndex, content_block: contentBlock });
  };

  const delta = (body: object) => event('content_block_delta', { index: blockIndex, delta: body });

  const stop = (reason: FinishReason) => {
    stopped = true;
    return (
      start() +
      close() +
      event('message_delta', {
        delta: { stop_reason: STOP_REASON[reason], stop_sequence: null },
        usage: {
          input_tokens: usage.inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: usage.outputTokens,
        },
      })
    );
  };

  const write = (piece: Piece): string => {
    switch (piece.kind) {
      case 'start':
        return start();
      case 'reasoning':
        return (
          open({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' }) +
          delta({ type: 'thinking_delta', thinking: piece.text })
        );
      case 'text':
        return (
          open({ kind: 'text' }, { type: 'text', text: '' }) + delta({ type: 'text_delta', text: piece.text })
        );
      case 'tool-call':
        return (
          open(
            { kind: 'tool_use', call: piece.call },
            { type: 'tool_use', id: `toolu_${context.id}_${piece.call}`, name: piece.name, input: {} },
          ) + delta({ type: 'input_json_delta', partial_json: piece.args })
        );
      case 'finish':
        return stop(piece.reason);
      case 'done':
        return (stopped ? '' : stop('stop')) + event('message_stop', {});
      case 'error': {
        const error = ERROR_TYPE[piece.errorType];
        return event('error', { error: { type: error.type, message: piece.message ?? error.message } });
      }
      case 'heartbeat':
        return event('ping', {});
      case 'usage':
      case 'reset':
      case 'hang':
        return '';
    }
  };
  return script.pieces.map(write);
}

/** Anthropic's error envelope `{ type: "error", error: { type, message }, request_id }`. */
export function anthropicErrorReply(script: ErrorScript, context: WriteContext): HttpReply {
  const { type, message } = anthropicErrorFor(script.status);
  return {
    status: script.status,
    headers: {
      'content-type': 'application/json',
      'request-id': `req_${context.id}`,
      ...retryHeaders(script),
    },
    body: JSON.stringify({
      type: 'error',
      error: { type, message: script.message ?? message },
      request_id: `req_${context.id}`,
    }),
  };
}

function anthropicErrorFor(status: number): { type: string; message: string } {
  switch (status) {
    case 401:
      return { type: 'authentication_error', message: 'invalid x-api-key' };
    case 403:
      return {
        type: 'permission_error',
        message: 'Your API key does not have permission to use the specified resource.',
      };
    case 404:
      return { type: 'not_found_error', message: 'The requested resource could not be found.' };
    case 429:
      return { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your rate limit.' };
    case 529:
    case 503:
      return { type: 'overloaded_error', message: 'Overloaded' };
    default:
      return status >= 500
        ? { type: 'api_error', message: 'Internal server error' }
        : { type: 'invalid_request_error', message: 'Invalid request.' };
  }
}
