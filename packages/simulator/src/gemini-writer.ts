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
  lastFragmentOfEachCall,
  retryHeaders,
  type WireWriter,
  type WriteContext,
  wholeCallArguments,
} from './wire-format.ts';

/**
 * Gemini `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: every event is a whole
 * `GenerateContentResponse` on one `data:` line, framed with CRLF as the API sends it. Parts are
 * `{text}`, `{text, thought: true}` for thought summaries, or `{functionCall: {name, args}}` — whole
 * calls, never argument fragments. The last chunk carries `finishReason` and the full `usageMetadata`;
 * the stream then simply ends (no terminal sentinel).
 */
export interface GeminiWriterOptions {
  /** Default `\r\n`, as the API frames its events. */
  readonly lineEnding?: LineEnding;
}

const FINISH_REASON: Readonly<Record<FinishReason, string>> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
};

const STREAM_ERROR: Readonly<Record<ProviderErrorType, number>> = {
  overloaded: 503,
  internal: 500,
  rate_limited: 429,
};

export function geminiWriter(options: GeminiWriterOptions = {}): WireWriter<string> {
  const eol = options.lineEnding ?? '\r\n';
  return {
    format: 'gemini',
    streamHeaders: () => ({ 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }),
    render: (script, context) => renderGemini(script, context, eol),
    complete(script, context) {
      const { blocks, finish } = contentOf(script);
      const parts = blocks.map((block) =>
        block.kind === 'reasoning'
          ? { text: block.text, thought: true }
          : block.kind === 'text'
            ? { text: block.text }
            : {
                functionCall: {
                  name: block.name,
                  args: wholeCallArguments(block.args, block.call, 'gemini'),
                },
              },
      );
      const body = {
        candidates: [
          { content: { parts, role: 'model' }, finishReason: FINISH_REASON[finish ?? 'stop'], index: 0 },
        ],
        usageMetadata: fullUsage(scriptUsage(script)),
        modelVersion: context.model,
        responseId: context.id,
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: JSON.stringify(body),
      };
    },
    errorReply: geminiErrorReply,
  };
}

function renderGemini(script: StreamScript, context: WriteContext, eol: LineEnding): string[] {
  const usage = scriptUsage(script);
  const lastFragment = lastFragmentOfEachCall(script);
  const args = new Map<number, string>();
  const chunk = (candidate: object, usageMetadata: object) =>
    sseEvent(
      JSON.stringify({
        candidates: [{ ...candidate, index: 0 }],
        usageMetadata,
        modelVersion: context.model,
        responseId: context.id,
      }),
      eol,
    );
  const partial = { promptTokenCount: usage.inputTokens, totalTokenCount: usage.inputTokens };
  const content = (part: object) => ({ content: { parts: [part], role: 'model' } });

  const write = (piece: Piece, index: number): string => {
    switch (piece.kind) {
      case 'reasoning':
        return chunk(content({ text: piece.text, thought: true }), partial);
      case 'text':
        return chunk(content({ text: piece.text }), partial);
      case 'tool-call': {
        const soFar = (args.get(piece.call) ?? '') + piece.args;
        args.set(piece.call, soFar);
        if (lastFragment.get(piece.call) !== index) return '';
        return chunk(
          content({
            functionCall: { name: piece.name, args: wholeCallArguments(soFar, piece.call, 'gemini') },
          }),
          partial,
        );
      }
      case 'finish':
        return chunk(
          { ...content({ text: '' }), finishReason: FINISH_REASON[piece.reason] },
          fullUsage(usage),
        );
      case 'error':
        return sseEvent(JSON.stringify(geminiError(STREAM_ERROR[piece.errorType], piece.message)), eol);
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

/** Google's error envelope `{ error: { code, message, status, details } }` (google.rpc.Status). */
function geminiError(status: number, message?: string, retryAfterSeconds?: number): object {
  const [rpcStatus, defaultMessage] = rpcStatusFor(status);
  const details =
    retryAfterSeconds === undefined
      ? []
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.RetryInfo',
            retryDelay: `${Math.ceil(retryAfterSeconds)}s`,
          },
        ];
  return {
    error: {
      code: status,
      message: message ?? defaultMessage,
      status: rpcStatus,
      ...(details.length ? { details } : {}),
    },
  };
}

export function geminiErrorReply(script: ErrorScript, _context: WriteContext): HttpReply {
  return {
    status: script.status,
    headers: { 'content-type': 'application/json; charset=UTF-8', ...retryHeaders(script) },
    body: JSON.stringify(geminiError(script.status, script.message, script.retryAfterSeconds)),
  };
}

function rpcStatusFor(status: number): [string, string] {
  switch (status) {
    case 400:
      return ['INVALID_ARGUMENT', 'Request contains an invalid argument.'];
    case 401:
      return ['UNAUTHENTICATED', 'Request had invalid authentication credentials.'];
    case 403:
      return ['PERMISSION_DENIED', 'The caller does not have permission.'];
    case 404:
      return ['NOT_FOUND', 'Requested entity was not found.'];
    case 429:
      return ['RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).'];
    case 503:
      return ['UNAVAILABLE', 'The model is overloaded. Please try again later.'];
    case 504:
      return ['DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'];
    default:
      return status >= 500
        ? ['INTERNAL', 'An internal error has occurred.']
        : ['FAILED_PRECONDITION', 'Precondition check failed.'];
  }
}

/** `usageMetadata` as the last chunk (or a whole response) reports it; thoughts are counted apart. */
function fullUsage(usage: Usage): object {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens - (usage.reasoningTokens ?? 0),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.reasoningTokens ? { thoughtsTokenCount: usage.reasoningTokens } : {}),
  };
}
