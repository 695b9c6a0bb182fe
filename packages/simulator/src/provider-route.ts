import type { WireFormat } from './wire-format.ts';

/**
 * Which provider API a request path belongs to, matched on the path's end as the real APIs name
 * them, so any prefix works (`/v1/chat/completions`, `/api/v1/chat/completions` as on OpenRouter,
 * `/lane-a/v1/messages` for one lane of a shared server).
 */
export interface ProviderRoute {
  readonly format: WireFormat;
  /** Ollama: which endpoint. */
  readonly endpoint?: 'chat' | 'generate';
  /** Gemini, Vertex AI's partner models and Bedrock name the model in the path. */
  readonly model?: string;
  /**
   * Gemini, Vertex AI and Bedrock decide streaming by the method name (`streamGenerateContent` vs
   * `generateContent`, `streamRawPredict` vs `rawPredict`, `converse-stream` vs `converse`).
   */
  readonly stream?: boolean;
  /** Gemini streams SSE only with `alt=sse`; without it the API streams a JSON array. */
  readonly sse?: boolean;
}

const GEMINI = /\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;
/**
 * Vertex AI's partner models, each in its maker's wire format: Anthropic's Messages and Mistral's
 * Chat Completions at `…/publishers/{publisher}/models/{model}:streamRawPredict`.
 */
const VERTEX_PARTNER = /\/publishers\/(anthropic|mistralai)\/models\/([^/:]+):(streamRawPredict|rawPredict)$/;

/**
 * Amazon Bedrock's runtime: `/model/{modelId}/{operation}`, the model id percent-encoded (`:` as
 * `%3A`, an ARN's `/` as `%2F`). InvokeModel (Anthropic models: the Messages API's events) and
 * Converse, each with its streaming variant.
 */
const BEDROCK = /\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream)$/;

export function routeOf(method: string, url: string): ProviderRoute | undefined {
  if (method !== 'POST') return undefined;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (path.endsWith('/chat/completions')) return { format: 'openai-chat' };
  if (path.endsWith('/responses')) return { format: 'openai-responses' };
  if (path.endsWith('/messages')) return { format: 'anthropic' };
  if (path.endsWith('/api/chat')) return { format: 'ollama', endpoint: 'chat' };
  if (path.endsWith('/api/generate')) return { format: 'ollama', endpoint: 'generate' };
  if (path.endsWith('/v2/chat')) return { format: 'cohere' };
  if (path.endsWith('/v1/chat')) return { format: 'cohere-v1' };
  const partner = VERTEX_PARTNER.exec(path);
  if (partner) {
    return {
      format: partner[1] === 'anthropic' ? 'anthropic' : 'openai-chat',
      model: decodeURIComponent(partner[2] ?? ''),
      stream: partner[3] === 'streamRawPredict',
    };
  }
  const bedrock = BEDROCK.exec(path);
  if (bedrock) {
    const operation = bedrock[2] ?? '';
    return {
      format: operation.startsWith('invoke') ? 'bedrock-invoke' : 'bedrock-converse',
      model: decodePathSegment(bedrock[1] ?? ''),
      stream: operation.endsWith('stream'),
    };
  }
  const gemini = GEMINI.exec(path);
  if (gemini) {
    const params = new URLSearchParams(query === -1 ? '' : url.slice(query + 1));
    return {
      format: 'gemini',
      model: decodeURIComponent(gemini[1] ?? ''),
      stream: gemini[2] === 'streamGenerateContent',
      sse: params.get('alt') === 'sse',
    };
  }
  return undefined;
}

/** A percent-decoded path segment; one that is not valid percent-encoding is kept as sent. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The path of each API, for printing a base URL's endpoints. */
export const ENDPOINT_PATHS: Readonly<Record<string, string>> = {
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  anthropic: '/v1/messages',
  gemini: '/v1beta/models/{model}:streamGenerateContent?alt=sse',
  'ollama-chat': '/api/chat',
  'ollama-generate': '/api/generate',
  cohere: '/v2/chat',
  'cohere-v1': '/v1/chat',
  'vertex-anthropic':
    '/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict',
  'vertex-mistral':
    '/v1/projects/{project}/locations/{region}/publishers/mistralai/models/{model}:streamRawPredict',
  'bedrock-invoke': '/model/{model}/invoke-with-response-stream',
  'bedrock-converse': '/model/{model}/converse-stream',
};
