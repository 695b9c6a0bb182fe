import {
  type FinishReason,
  type Piece,
  type ProviderErrorType,
  type StreamScript,
  scriptUsage,
} from './script.ts';
import { type ContentBlock, contentOf } from './script-content.ts';
import { type WireFormat, type WriteContext, wholeCallArguments } from './wire-format.ts';

/**
 * Anthropic Messages streaming events as JSON objects, before any framing: `message_start`, then per
 * content block `content_block_start` / `content_block_delta`… / `content_block_stop` (thinking with
 * `thinking_delta` and a closing `signature_delta`, text with `text_delta`, tool_use with
 * `input_json_delta`), `ping` keep-alives anywhere, `message_delta` with the stop reason and the usage,
 * and `message_stop`; errors mid-stream are an `error` event (`overloaded_error`, …). The Messages API
 * sends them as SSE; Amazon Bedrock's InvokeModelWithResponseStream sends the same JSON in AWS event
 * stream frames.
 */
export interface AnthropicEvent {
  /** The event's type, which SSE repeats as the event name. */
  readonly type: string;
  readonly [field: string]: unknown;
}

export const ANTHROPIC_STOP_REASON: Readonly<Record<FinishReason, string>> = {
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

/** The events each piece of the script writes, in order; none where the piece has no event. */
export function anthropicEvents(script: StreamScript, context: WriteContext): AnthropicEvent[][] {
  const usage = scriptUsage(script);
  const event = (type: string, body: object): AnthropicEvent => ({ type, ...body });
  let started = false;
  let stopped = false;
  let block: Block | undefined;
  let blockIndex = -1;

  const start = (): AnthropicEvent[] => {
    if (started) return [];
    started = true;
    return [
      event('message_start', {
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
      }),
    ];
  };

  const close = (): AnthropicEvent[] => {
    if (!block) return [];
    // A thinking block ends with its signature, which the API sends just before content_block_stop.
    const signature =
      block.kind === 'thinking'
        ? [
            event('content_block_delta', {
              index: blockIndex,
              delta: { type: 'signature_delta', signature: `sig_${context.id}_${blockIndex}` },
            }),
          ]
        : [];
    block = undefined;
    return [...signature, event('content_block_stop', { index: blockIndex })];
  };

  const open = (next: Block, contentBlock: object): AnthropicEvent[] => {
    const same =
      block?.kind === next.kind &&
      (block.kind !== 'tool_use' || (next.kind === 'tool_use' && block.call === next.call));
    if (same) return [];
    const out = [...start(), ...close()];
    block = next;
    blockIndex++;
    return [...out, event('content_block_start', { index: blockIndex, content_block: contentBlock })];
  };

  const delta = (body: object) => event('content_block_delta', { index: blockIndex, delta: body });

  const stop = (reason: FinishReason): AnthropicEvent[] => {
    stopped = true;
    return [
      ...start(),
      ...close(),
      event('message_delta', {
        delta: { stop_reason: ANTHROPIC_STOP_REASON[reason], stop_sequence: null },
        usage: {
          input_tokens: usage.inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: usage.outputTokens,
        },
      }),
    ];
  };

  const write = (piece: Piece): AnthropicEvent[] => {
    switch (piece.kind) {
      case 'start':
        return start();
      case 'reasoning':
        return [
          ...open({ kind: 'thinking' }, { type: 'thinking', thinking: '', signature: '' }),
          delta({ type: 'thinking_delta', thinking: piece.text }),
        ];
      case 'text':
        return [
          ...open({ kind: 'text' }, { type: 'text', text: '' }),
          delta({ type: 'text_delta', text: piece.text }),
        ];
      case 'tool-call':
        return [
          ...open(
            { kind: 'tool_use', call: piece.call },
            { type: 'tool_use', id: `toolu_${context.id}_${piece.call}`, name: piece.name, input: {} },
          ),
          delta({ type: 'input_json_delta', partial_json: piece.args }),
        ];
      case 'finish':
        return stop(piece.reason);
      case 'done':
        return [...(stopped ? [] : stop('stop')), event('message_stop', {})];
      case 'error': {
        const error = ERROR_TYPE[piece.errorType];
        return [event('error', { error: { type: error.type, message: piece.message ?? error.message } })];
      }
      case 'heartbeat':
        return [event('ping', {})];
      case 'usage':
      case 'reset':
      case 'hang':
        return [];
    }
  };
  return script.pieces.map(write);
}

/** The whole Messages API response (`type: "message"`) of a non-streaming call. */
export function anthropicMessage(
  script: StreamScript,
  context: WriteContext,
  format: WireFormat = 'anthropic',
): object {
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
          input: wholeCallArguments(block.args, block.call, format),
        };
    }
  };
  return {
    id: `msg_${context.id}`,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content: blocks.map(blockOf),
    stop_reason: ANTHROPIC_STOP_REASON[finish ?? 'stop'],
    stop_sequence: null,
    usage: {
      input_tokens: usage.inputTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: usage.outputTokens,
    },
  };
}
