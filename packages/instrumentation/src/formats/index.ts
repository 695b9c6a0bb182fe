import { bedrockOperationOf, type PathFamily, vertexPartnerOf } from '../request-identity.ts';
import { anthropicMessages } from './anthropic-messages.ts';
import { bedrockConverse, bedrockInvoke, genericEventStream } from './bedrock.ts';
import { cohereChat, cohereChatLines } from './cohere-chat.ts';
import { gemini } from './gemini.ts';
import { genericNdjson, genericSse } from './generic.ts';
import { ollama } from './ollama.ts';
import { openaiChat } from './openai-chat.ts';
import { openaiResponses } from './openai-responses.ts';
import type { Format, FormatName } from './stream-observer.ts';

export type {
  DetectorOptions,
  Format,
  FormatName,
  StreamDetector,
  StreamObserver,
} from './stream-observer.ts';
export { OTHER_STREAM_ERROR, sanitizeErrorType, UNTYPED_STREAM_ERROR } from './stream-report.ts';

export const FORMATS: Readonly<Record<FormatName, Format>> = {
  openai_chat: openaiChat,
  openai_responses: openaiResponses,
  anthropic_messages: anthropicMessages,
  gemini,
  ollama,
  cohere_chat: cohereChat,
  bedrock_converse: bedrockConverse,
  bedrock_invoke: bedrockInvoke,
  sse: genericSse,
  ndjson: genericNdjson,
  eventstream: genericEventStream,
};

type Framing = 'sse' | 'ndjson' | 'eventstream';

/** The streaming framing a content type announces; undefined for anything else (a whole JSON body…). */
function framingOf(contentType: string | undefined): Framing | undefined {
  if (contentType === undefined) return undefined;
  const semicolon = contentType.indexOf(';');
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  switch (mediaType) {
    case 'text/event-stream':
      return 'sse';
    case 'application/x-ndjson':
    case 'application/ndjson':
    case 'application/jsonl':
    case 'application/stream+json':
    case 'application/x-jsonlines':
      return 'ndjson';
    case 'application/vnd.amazon.eventstream':
      return 'eventstream';
    default:
      return undefined;
  }
}

/** The provider format a URL path names, and the framing that format comes in. */
function formatOfPath(path: string): Format | undefined {
  if (path.endsWith('/chat/completions')) return openaiChat;
  if (path.endsWith('/v1/messages')) return anthropicMessages;
  if (path.endsWith(':streamGenerateContent')) return gemini;
  if (path.endsWith('/api/chat') || path.endsWith('/api/generate')) return ollama;
  // `/v1/responses`, and `/v1/responses/{id}` read again with `stream=true`.
  if (path.endsWith('/responses') || /\/responses\/[^/]+$/.test(path)) return openaiResponses;
  // Vertex AI's partner models (`…/publishers/anthropic/models/{model}:streamRawPredict`).
  const partner = vertexPartnerOf(path)?.family;
  if (partner === 'anthropic_messages') return anthropicMessages;
  if (partner === 'openai_chat') return openaiChat;
  // Amazon Bedrock's `/model/{model}/converse-stream` and `/model/{model}/invoke-with-response-stream`.
  const bedrock = bedrockOperationOf(path)?.family;
  if (bedrock === 'bedrock_converse') return bedrockConverse;
  if (bedrock === 'bedrock_invoke') return bedrockInvoke;
  return undefined;
}

const FRAMING_OF_FORMAT: Readonly<Record<FormatName, Framing>> = {
  openai_chat: 'sse',
  openai_responses: 'sse',
  anthropic_messages: 'sse',
  gemini: 'sse',
  ollama: 'ndjson',
  cohere_chat: 'sse',
  bedrock_converse: 'eventstream',
  bedrock_invoke: 'eventstream',
  sse: 'sse',
  ndjson: 'ndjson',
  eventstream: 'eventstream',
};

/**
 * The detector format for a response, from its request's URL path and its `content-type`; undefined
 * when the response is not a stream.
 *
 * The content type says whether it is a stream at all, and its framing: `text/event-stream` (SSE),
 * `application/x-ndjson` / `application/jsonl` / `application/stream+json` (NDJSON),
 * `application/vnd.amazon.eventstream` (AWS event streams). A response without one of those — a
 * non-streaming `application/json` answer, or no content type — is not a stream. Then the path names
 * the provider format (`/chat/completions`, `/responses`, `/v1/messages`, `:streamGenerateContent`,
 * `/api/chat`, `/api/generate`, Cohere's `/v2/chat` (SSE or NDJSON) and `/v1/chat` (NDJSON; SSE too
 * when `family` is `cohere_chat`, the request having gone to Cohere's own host),
 * Vertex AI's `/publishers/{anthropic|mistralai}/models/…:streamRawPredict`,
 * Bedrock's `/model/{model}/converse-stream` and `/invoke-with-response-stream`)
 * when its framing matches; otherwise the generic SSE, NDJSON or event-stream format
 * still measures the first event and the end. Only the path is read: anything from a `?` on is cut
 * off first, since query strings can carry API keys.
 */
export function selectFormat(
  path: string,
  contentType: string | undefined,
  family?: PathFamily,
): Format | undefined {
  const framing = framingOf(contentType);
  if (framing === undefined) return undefined;
  const query = path.search(/[?#]/);
  let bare = query === -1 ? path : path.slice(0, query);
  if (bare.length > 1 && bare.endsWith('/')) bare = bare.slice(0, -1);
  // Cohere's Chat API comes over SSE (v2; v1 asked for `text/event-stream`) or as JSON lines (v1;
  // v2 asked for JSON), one detector for both. `/v1/chat` is a plain path: JSON lines there are
  // Cohere's on any host, SSE only on Cohere's own (its family), since many chat servers stream
  // SSE at that path.
  if (bare.endsWith('/v2/chat') && framing !== 'eventstream')
    return framing === 'sse' ? cohereChat : cohereChatLines;
  if (bare.endsWith('/v1/chat') && framing === 'ndjson') return cohereChatLines;
  if (bare.endsWith('/v1/chat') && framing === 'sse' && family === 'cohere_chat') return cohereChat;
  const format = formatOfPath(bare);
  if (format !== undefined && FRAMING_OF_FORMAT[format.name] === framing) return format;
  return framing === 'sse' ? genericSse : framing === 'ndjson' ? genericNdjson : genericEventStream;
}
