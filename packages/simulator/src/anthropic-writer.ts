import { anthropicEvents, anthropicMessage } from './anthropic-events.ts';
import type { ErrorScript } from './script.ts';
import { type LineEnding, sseEvent } from './sse.ts';
import { type HttpReply, retryHeaders, type WireWriter, type WriteContext } from './wire-format.ts';

/**
 * Anthropic Messages streaming (`POST /v1/messages`, `stream: true`): the events of
 * `anthropicEvents`, each as `event: <type>` and one `data:` line of its JSON.
 */
export interface AnthropicWriterOptions {
  readonly lineEnding?: LineEnding;
}

export function anthropicWriter(options: AnthropicWriterOptions = {}): WireWriter<string> {
  const eol = options.lineEnding ?? '\n';
  return {
    format: 'anthropic',
    streamHeaders: (context) => ({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': `req_${context.id}`,
    }),
    render: (script, context) =>
      anthropicEvents(script, context).map((events) =>
        events.map((event) => sseEvent(JSON.stringify(event), eol, event.type)).join(''),
      ),
    complete: (script, context) => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'request-id': `req_${context.id}` },
      body: JSON.stringify(anthropicMessage(script, context)),
    }),
    errorReply: anthropicErrorReply,
  };
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
