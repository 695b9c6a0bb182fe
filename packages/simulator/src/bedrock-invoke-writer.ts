import { type AnthropicEvent, anthropicEvents, anthropicMessage } from './anthropic-events.ts';
import { concatMessages } from './aws-event-stream.ts';
import { bedrockErrorReply, bedrockExceptionMessage } from './bedrock-errors.ts';
import { bedrockEventWriter, bedrockRequestId } from './bedrock-frames.ts';
import { type StreamScript, scheduleOf, scriptUsage } from './script.ts';
import type { WireWriter, WriteContext } from './wire-format.ts';

/**
 * Amazon Bedrock's InvokeModelWithResponseStream for Anthropic models
 * (`POST /model/{modelId}/invoke-with-response-stream`): the Messages API's streaming events, each
 * in one AWS event stream message (`:event-type: chunk`) whose payload is
 * `{"bytes": base64(event JSON), "p": padding}`. Bedrock sends no `ping`, adds
 * `amazon-bedrock-invocationMetrics` to `message_stop`, and reports an error as an exception message
 * that ends the stream. `POST /model/{modelId}/invoke` answers with the whole message.
 */
export function bedrockInvokeWriter(): WireWriter<Uint8Array> {
  return {
    format: 'bedrock-invoke',
    streamHeaders: (context) => ({
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-requestid': bedrockRequestId(context),
      'x-amzn-bedrock-content-type': 'application/json',
    }),
    render: renderInvoke,
    complete(script, context) {
      const usage = scriptUsage(script);
      const { headersAtMs, piecesAtMs } = scheduleOf(script);
      return {
        status: 200,
        headers: {
          'content-type': 'application/json',
          'x-amzn-requestid': bedrockRequestId(context),
          'x-amzn-bedrock-invocation-latency': String(Math.round(piecesAtMs.at(-1) ?? headersAtMs)),
          'x-amzn-bedrock-output-token-count': String(usage.outputTokens),
          'x-amzn-bedrock-input-token-count': String(usage.inputTokens),
        },
        body: JSON.stringify(anthropicMessage(script, context, 'bedrock-invoke')),
      };
    },
    errorReply: bedrockErrorReply,
  };
}

function renderInvoke(script: StreamScript, context: WriteContext): Uint8Array[] {
  const usage = scriptUsage(script);
  const { headersAtMs, piecesAtMs } = scheduleOf(script);
  // Bedrock keeps no keep-alive of the Messages API; an error is an exception, not an event.
  const events = anthropicEvents(script, context).map((pieceEvents, index) =>
    script.pieces[index]?.kind === 'error' ? [] : pieceEvents.filter((event) => event.type !== 'ping'),
  );
  const firstWrite = script.pieces.findIndex(
    (piece, index) => piece.kind === 'error' || (events[index]?.length ?? 0) > 0,
  );
  // The latencies count from the request, as Bedrock's do, to the first bytes and to message_stop.
  const firstByteLatency = Math.round(piecesAtMs[firstWrite] ?? headersAtMs);
  const writer = bedrockEventWriter(context);
  const chunk = (event: AnthropicEvent, index: number) => {
    const json =
      event.type === 'message_stop'
        ? {
            ...event,
            'amazon-bedrock-invocationMetrics': {
              inputTokenCount: usage.inputTokens,
              outputTokenCount: usage.outputTokens,
              invocationLatency: Math.round(piecesAtMs[index] ?? headersAtMs),
              firstByteLatency,
            },
          }
        : event;
    return writer.event('chunk', { bytes: Buffer.from(JSON.stringify(json), 'utf8').toString('base64') });
  };
  let ended = false;
  return script.pieces.map((piece, index) => {
    if (ended) return new Uint8Array(0);
    if (piece.kind === 'error') {
      ended = true;
      return bedrockExceptionMessage(piece.errorType, piece.message);
    }
    return concatMessages((events[index] ?? []).map((event) => chunk(event, index)));
  });
}
