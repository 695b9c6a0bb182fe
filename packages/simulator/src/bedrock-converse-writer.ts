import { concatMessages } from './aws-event-stream.ts';
import { bedrockErrorReply, bedrockExceptionMessage } from './bedrock-errors.ts';
import { bedrockEventWriter, bedrockRequestId } from './bedrock-frames.ts';
import { type FinishReason, type Piece, type StreamScript, scheduleOf, scriptUsage } from './script.ts';
import { type ContentBlock, contentOf } from './script-content.ts';
import { type WireWriter, type WriteContext, wholeCallArguments } from './wire-format.ts';

/**
 * Amazon Bedrock's ConverseStream (`POST /model/{modelId}/converse-stream`), every model in one
 * shape: AWS event stream messages named by `:event-type` with the event's JSON as payload —
 * `messageStart`, `contentBlockDelta` (text, `reasoningContent` text then its signature, `toolUse`
 * input fragments), `contentBlockStart` only for a tool use, `contentBlockStop` as each block ends,
 * `messageStop` with the stop reason, and `metadata` (usage, latency) last. An error is an exception
 * message that ends the stream. `POST /model/{modelId}/converse` answers with the whole message.
 */
export function bedrockConverseWriter(): WireWriter<Uint8Array> {
  return {
    format: 'bedrock-converse',
    streamHeaders: (context) => ({
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-requestid': bedrockRequestId(context),
    }),
    render: renderConverse,
    complete(script, context) {
      const { blocks, finish } = contentOf(script);
      const { headersAtMs, piecesAtMs } = scheduleOf(script);
      const blockOf = (block: ContentBlock, index: number): object => {
        switch (block.kind) {
          case 'reasoning':
            return {
              reasoningContent: {
                reasoningText: { text: block.text, signature: `sig_${context.id}_${index}` },
              },
            };
          case 'text':
            return { text: block.text };
          case 'tool-call':
            return {
              toolUse: {
                toolUseId: toolUseId(context, block.call),
                name: block.name,
                input: wholeCallArguments(block.args, block.call, 'bedrock-converse'),
              },
            };
        }
      };
      const body = {
        output: { message: { role: 'assistant', content: blocks.map(blockOf) } },
        stopReason: STOP_REASON[finish ?? 'stop'],
        usage: usageOf(script),
        metrics: { latencyMs: Math.round(piecesAtMs.at(-1) ?? headersAtMs) },
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-amzn-requestid': bedrockRequestId(context) },
        body: JSON.stringify(body),
      };
    },
    errorReply: bedrockErrorReply,
  };
}

const STOP_REASON: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
};

type Block =
  | { readonly kind: 'reasoning' | 'text' }
  | { readonly kind: 'tool-call'; readonly call: number; readonly name: string };

const toolUseId = (context: WriteContext, call: number) => `tooluse_${context.id}_${call}`;

function usageOf(script: StreamScript) {
  const { inputTokens, outputTokens } = scriptUsage(script);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

function renderConverse(script: StreamScript, context: WriteContext): Uint8Array[] {
  const { headersAtMs, piecesAtMs } = scheduleOf(script);
  const writer = bedrockEventWriter(context);
  let started = false;
  let stopped = false;
  let ended = false;
  let block: Block | undefined;
  let blockIndex = -1;

  // Each helper writes its events in wire order: the padding of every event is drawn in turn.
  const start = (): Uint8Array[] => {
    if (started) return [];
    started = true;
    return [writer.event('messageStart', { role: 'assistant' })];
  };

  const close = (): Uint8Array[] => {
    if (!block) return [];
    const out: Uint8Array[] = [];
    if (block.kind === 'reasoning') {
      const signature = `sig_${context.id}_${blockIndex}`;
      out.push(
        writer.event('contentBlockDelta', {
          contentBlockIndex: blockIndex,
          delta: { reasoningContent: { signature } },
        }),
      );
    }
    block = undefined;
    out.push(writer.event('contentBlockStop', { contentBlockIndex: blockIndex }));
    return out;
  };

  const open = (next: Block): Uint8Array[] => {
    const same =
      block?.kind === next.kind &&
      (block.kind !== 'tool-call' || (next.kind === 'tool-call' && block.call === next.call));
    if (same) return [];
    const out = [...start(), ...close()];
    block = next;
    blockIndex++;
    // Only a tool use opens with contentBlockStart; text and reasoning begin with their first delta.
    if (next.kind === 'tool-call') {
      out.push(
        writer.event('contentBlockStart', {
          start: { toolUse: { toolUseId: toolUseId(context, next.call), name: next.name } },
          contentBlockIndex: blockIndex,
        }),
      );
    }
    return out;
  };

  const stop = (reason: FinishReason): Uint8Array[] => {
    stopped = true;
    return [...start(), ...close(), writer.event('messageStop', { stopReason: STOP_REASON[reason] })];
  };

  const write = (piece: Piece, index: number): Uint8Array[] => {
    switch (piece.kind) {
      case 'start':
        return start();
      case 'reasoning': {
        const opened = open({ kind: 'reasoning' });
        return [
          ...opened,
          writer.event('contentBlockDelta', {
            contentBlockIndex: blockIndex,
            delta: { reasoningContent: { text: piece.text } },
          }),
        ];
      }
      case 'text': {
        const opened = open({ kind: 'text' });
        return [
          ...opened,
          writer.event('contentBlockDelta', { contentBlockIndex: blockIndex, delta: { text: piece.text } }),
        ];
      }
      case 'tool-call': {
        const opened = open({ kind: 'tool-call', call: piece.call, name: piece.name });
        return [
          ...opened,
          writer.event('contentBlockDelta', {
            delta: { toolUse: { input: piece.args } },
            contentBlockIndex: blockIndex,
          }),
        ];
      }
      case 'finish':
        return stop(piece.reason);
      case 'done': {
        const stopping = stopped ? [] : stop('stop');
        const latencyMs = Math.round(piecesAtMs[index] ?? headersAtMs);
        return [...stopping, writer.event('metadata', { usage: usageOf(script), metrics: { latencyMs } })];
      }
      case 'error':
        ended = true;
        return [bedrockExceptionMessage(piece.errorType, piece.message)];
      case 'usage':
      case 'heartbeat':
      case 'reset':
      case 'hang':
        return [];
    }
  };
  return script.pieces.map((piece, index) =>
    ended ? new Uint8Array(0) : concatMessages(write(piece, index)),
  );
}
