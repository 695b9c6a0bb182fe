import { openaiErrorReply } from './openai-chat-writer.ts';
import { type Piece, type ProviderErrorType, type StreamScript, scriptUsage, type Usage } from './script.ts';
import { type ContentBlock, contentOf } from './script-content.ts';
import { type LineEnding, sseComment, sseEvent } from './sse.ts';
import type { WireWriter, WriteContext } from './wire-format.ts';

/**
 * OpenAI Responses API streaming (`POST /v1/responses`, `stream: true`): named events
 * (`event: response.output_text.delta`) whose JSON repeats the name in `type` and numbers every event
 * in `sequence_number`. Output items open with `response.output_item.added`, stream their deltas,
 * and close with their `.done` events; the stream ends with `response.completed` (or
 * `response.incomplete`) carrying the whole response and its usage. There is no `[DONE]`.
 */
export interface OpenAIResponsesWriterOptions {
  readonly lineEnding?: LineEnding;
}

const STREAM_ERROR_CODE: Readonly<Record<ProviderErrorType, string>> = {
  overloaded: 'server_is_overloaded',
  internal: 'server_error',
  rate_limited: 'rate_limit_exceeded',
};

const STREAM_ERROR_MESSAGE: Readonly<Record<ProviderErrorType, string>> = {
  overloaded: 'The server is overloaded. Please try again later.',
  internal: 'The server had an error while processing your request.',
  rate_limited: 'Rate limit reached for requests.',
};

type Item =
  | { readonly type: 'reasoning'; readonly id: string; readonly outputIndex: number; text: string }
  | { readonly type: 'message'; readonly id: string; readonly outputIndex: number; text: string }
  | {
      readonly type: 'function_call';
      readonly id: string;
      readonly outputIndex: number;
      readonly call: number;
      readonly name: string;
      text: string;
    };

export function openaiResponsesWriter(options: OpenAIResponsesWriterOptions = {}): WireWriter<string> {
  const eol = options.lineEnding ?? '\n';
  return {
    format: 'openai-responses',
    streamHeaders: (context) => ({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': `req_${context.id}`,
    }),
    render: (script, context) => renderResponses(script, context, eol),
    complete(script, context) {
      const { blocks, finish } = contentOf(script);
      const itemOf = (block: ContentBlock, outputIndex: number): Item => {
        const suffix = `${context.id}_${outputIndex}`;
        switch (block.kind) {
          case 'reasoning':
            return { type: 'reasoning', id: `rs_${suffix}`, outputIndex, text: block.text };
          case 'text':
            return { type: 'message', id: `msg_${suffix}`, outputIndex, text: block.text };
          case 'tool-call':
            return {
              type: 'function_call',
              id: `fc_${suffix}`,
              outputIndex,
              call: block.call,
              name: block.name,
              text: block.args,
            };
        }
      };
      const items = blocks.map(itemOf);
      const status = finish === 'length' ? 'incomplete' : 'completed';
      const body = responseObject(
        context,
        status,
        items.map((item) => completedItem(item, context)),
        responsesUsage(scriptUsage(script)),
      );
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': `req_${context.id}` },
        body: JSON.stringify(body),
      };
    },
    errorReply: openaiErrorReply,
  };
}

function renderResponses(script: StreamScript, context: WriteContext, eol: LineEnding): string[] {
  let sequence = 0;
  let started = false;
  let finished = false;
  let incomplete = false;
  let current: Item | undefined;
  const items: Item[] = [];
  const event = (type: string, body: object) =>
    sseEvent(JSON.stringify({ type, sequence_number: sequence++, ...body }), eol, type);

  const start = () => {
    if (started) return '';
    started = true;
    const skeleton = responseObject(context, 'in_progress', [], null);
    return (
      event('response.created', { response: skeleton }) +
      event('response.in_progress', { response: skeleton })
    );
  };

  const close = () => {
    const item = current;
    if (!item) return '';
    current = undefined;
    const at = { item_id: item.id, output_index: item.outputIndex };
    let out = '';
    if (item.type === 'reasoning') {
      const part = { type: 'summary_text', text: item.text };
      out += event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: item.text });
      out += event('response.reasoning_summary_part.done', { ...at, summary_index: 0, part });
    } else if (item.type === 'message') {
      const part = { type: 'output_text', annotations: [], logprobs: [], text: item.text };
      out += event('response.output_text.done', { ...at, content_index: 0, text: item.text, logprobs: [] });
      out += event('response.content_part.done', { ...at, content_index: 0, part });
    } else {
      out += event('response.function_call_arguments.done', { ...at, arguments: item.text });
    }
    return (
      out +
      event('response.output_item.done', {
        output_index: item.outputIndex,
        item: completedItem(item, context),
      })
    );
  };

  // Opens the item a delta belongs to, closing the previous one: items never interleave on the wire.
  const open = (piece: Piece & { kind: 'reasoning' | 'text' | 'tool-call' }): [Item, string] => {
    const same =
      current &&
      ((piece.kind === 'reasoning' && current.type === 'reasoning') ||
        (piece.kind === 'text' && current.type === 'message') ||
        (piece.kind === 'tool-call' && current.type === 'function_call' && current.call === piece.call));
    if (current && same) return [current, ''];
    let out = start() + close();
    const outputIndex = items.length;
    const suffix = `${context.id}_${outputIndex}`;
    let item: Item;
    if (piece.kind === 'reasoning') {
      item = { type: 'reasoning', id: `rs_${suffix}`, outputIndex, text: '' };
      out += event('response.output_item.added', {
        output_index: outputIndex,
        item: { id: item.id, type: 'reasoning', summary: [] },
      });
      out += event('response.reasoning_summary_part.added', {
        item_id: item.id,
        output_index: outputIndex,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
    } else if (piece.kind === 'text') {
      item = { type: 'message', id: `msg_${suffix}`, outputIndex, text: '' };
      out += event('response.output_item.added', {
        output_index: outputIndex,
        item: { id: item.id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      });
      out += event('response.content_part.added', {
        item_id: item.id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
      });
    } else {
      item = {
        type: 'function_call',
        id: `fc_${suffix}`,
        outputIndex,
        call: piece.call,
        name: piece.name,
        text: '',
      };
      out += event('response.output_item.added', {
        output_index: outputIndex,
        item: {
          id: item.id,
          type: 'function_call',
          status: 'in_progress',
          arguments: '',
          call_id: `call_${context.id}_${piece.call}`,
          name: piece.name,
        },
      });
    }
    items.push(item);
    current = item;
    return [item, out];
  };

  const write = (piece: Piece): string => {
    switch (piece.kind) {
      case 'start':
        return start();
      case 'reasoning': {
        const [item, out] = open(piece);
        item.text += piece.text;
        return (
          out +
          event('response.reasoning_summary_text.delta', {
            item_id: item.id,
            output_index: item.outputIndex,
            summary_index: 0,
            delta: piece.text,
          })
        );
      }
      case 'text': {
        const [item, out] = open(piece);
        item.text += piece.text;
        return (
          out +
          event('response.output_text.delta', {
            item_id: item.id,
            output_index: item.outputIndex,
            content_index: 0,
            delta: piece.text,
            logprobs: [],
          })
        );
      }
      case 'tool-call': {
        const [item, out] = open(piece);
        item.text += piece.args;
        return (
          out +
          event('response.function_call_arguments.delta', {
            item_id: item.id,
            output_index: item.outputIndex,
            delta: piece.args,
          })
        );
      }
      case 'finish':
        finished = true;
        incomplete = piece.reason === 'length';
        return start() + close();
      case 'done': {
        const out = start() + (finished ? '' : close());
        const body = responseObject(
          context,
          incomplete ? 'incomplete' : 'completed',
          items.map((item) => completedItem(item, context)),
          responsesUsage(scriptUsage(script)),
        );
        return out + event(incomplete ? 'response.incomplete' : 'response.completed', { response: body });
      }
      case 'error':
        return event('error', {
          code: STREAM_ERROR_CODE[piece.errorType],
          message: piece.message ?? STREAM_ERROR_MESSAGE[piece.errorType],
          param: null,
        });
      case 'heartbeat':
        return sseComment('keep-alive', eol);
      case 'usage':
      case 'reset':
      case 'hang':
        return '';
    }
  };
  return script.pieces.map(write);
}

function responseObject(
  context: WriteContext,
  status: string,
  output: object[],
  usage: object | null,
): object {
  return {
    id: `resp_${context.id}`,
    object: 'response',
    created_at: Math.floor(context.createdAtMs / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model: context.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage,
    user: null,
    metadata: {},
  };
}

function completedItem(item: Item, context: WriteContext): object {
  switch (item.type) {
    case 'reasoning':
      return { id: item.id, type: 'reasoning', summary: [{ type: 'summary_text', text: item.text }] };
    case 'message':
      return {
        id: item.id,
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text: item.text }],
        role: 'assistant',
      };
    case 'function_call':
      return {
        id: item.id,
        type: 'function_call',
        status: 'completed',
        arguments: item.text,
        call_id: `call_${context.id}_${item.call}`,
        name: item.name,
      };
  }
}

function responsesUsage(usage: Usage): object {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
