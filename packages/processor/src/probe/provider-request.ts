/**
 * One streaming request in each provider's own wire format, to a base URL. Shared by `lanewatch probe`
 * (real endpoints) and `lanewatch demo` (the simulator's lanes). The prompt is fixed and tiny; the
 * response is never read here (the instrumentation measures it, the caller discards it).
 */

import { bedrockRegionOf } from './aws-signing.ts';

export const PROVIDER_FORMATS = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'ollama',
  'cohere',
  'bedrock-converse',
] as const;
export type ProviderFormat = (typeof PROVIDER_FORMATS)[number];

export function isProviderFormat(value: string): value is ProviderFormat {
  return (PROVIDER_FORMATS as readonly string[]).includes(value);
}

/** Seed 000's probe prompt: an answer of one word keeps the call about latency, not generation. */
export const PROBE_PROMPT = 'Return the word ready and nothing else.';

export interface ProviderRequestOptions {
  readonly model: string;
  readonly apiKey?: string | undefined;
  /** Anthropic requires a cap; the others are left to the model's default (some reject a cap). */
  readonly maxTokens?: number;
}

export interface ProviderRequest {
  readonly url: URL;
  readonly init: { method: 'POST'; headers: Record<string, string>; body: string };
}

/** How a format's endpoint hangs off a base URL, and the version segment its base usually ends in. */
const ENDPOINT_SUFFIX: Readonly<Record<ProviderFormat, { version: string; path: string }>> = {
  'openai-chat': { version: '/v1', path: '/chat/completions' },
  'openai-responses': { version: '/v1', path: '/responses' },
  anthropic: { version: '/v1', path: '/messages' },
  gemini: { version: '/v1beta', path: '/models/{model}:streamGenerateContent' },
  ollama: { version: '', path: '/api/chat' },
  cohere: { version: '/v2', path: '/chat' },
  'bedrock-converse': { version: '', path: '/model/{model}/converse-stream' },
};

/**
 * The endpoint for a base URL: `https://api.openai.com/v1` → `…/v1/chat/completions`; a bare origin
 * gets the format's usual version segment (`http://127.0.0.1:8000` → `…/v1/chat/completions`,
 * `https://api.anthropic.com` → `…/v1/messages`); a base that already names the endpoint is kept.
 * Cohere's version is added to any base that does not end in it, as its clients do (in place of
 * v1's). Gemini's and Bedrock's paths name the model: a base that names another one gets `model`'s.
 */
export function endpointOf(format: ProviderFormat, base: URL, model: string): URL {
  const { version, path } = ENDPOINT_SUFFIX[format];
  const endpoint = path.replace('{model}', encodeURIComponent(model));
  let basePath = base.pathname.replace(/\/+$/, '');
  if (format === 'gemini') basePath = basePath.replace(/\/models\/[^/]*$/, '');
  if (format === 'bedrock-converse') basePath = basePath.replace(/\/model\/[^/]+(\/converse-stream)?$/, '');
  if (format === 'ollama') basePath = basePath.replace(/\/api(\/(chat|generate))?$/, '');
  else if (basePath.endsWith(path)) basePath = basePath.slice(0, -path.length);
  if (basePath === '' && version !== '') basePath = version;
  // Cohere's clients take a base without the version (`https://api.cohere.com`) and add it; a base
  // that ends in v1's version gets v2's, the API the probe speaks.
  else if (format === 'cohere') basePath = `${basePath.replace(/\/v[12]$/, '')}${version}`;
  const url = new URL(base.origin);
  url.pathname = `${basePath}${endpoint}`;
  // Gemini streams SSE only with alt=sse; its key goes in a header, never in the query.
  if (format === 'gemini') url.search = '?alt=sse';
  return url;
}

export function providerRequest(
  format: ProviderFormat,
  base: URL,
  options: ProviderRequestOptions,
  prompt: string = PROBE_PROMPT,
): ProviderRequest {
  const { model, apiKey } = options;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  const messages = [{ role: 'user', content: prompt }];
  let body: unknown;
  switch (format) {
    case 'openai-chat':
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      body = { model, stream: true, stream_options: { include_usage: true }, messages };
      break;
    case 'openai-responses':
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      body = { model, stream: true, input: prompt };
      break;
    case 'anthropic':
      if (apiKey) headers['x-api-key'] = apiKey;
      headers['anthropic-version'] = '2023-06-01';
      body = { model, stream: true, max_tokens: options.maxTokens ?? 16, messages };
      break;
    case 'gemini':
      if (apiKey) headers['x-goog-api-key'] = apiKey;
      body = { contents: [{ role: 'user', parts: [{ text: prompt }] }] };
      break;
    case 'ollama':
      headers.accept = 'application/x-ndjson';
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      body = { model, stream: true, messages };
      break;
    case 'cohere':
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      body = { model, stream: true, messages };
      break;
    case 'bedrock-converse':
      // An Amazon Bedrock API key (a bearer token); requests signed with AWS credentials are not made here.
      headers.accept = 'application/vnd.amazon.eventstream';
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      body = { messages: [{ role: 'user', content: [{ text: prompt }] }] };
      break;
  }
  return {
    url: endpointOf(format, base, model),
    init: { method: 'POST', headers, body: JSON.stringify(body) },
  };
}

/**
 * The format a base URL most likely speaks, from its host, port and path; `undefined` when nothing
 * says (then an OpenAI-compatible server is the usual answer).
 */
export function detectFormat(base: URL): ProviderFormat | undefined {
  const host = base.hostname.toLowerCase();
  const path = base.pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) return 'openai-chat';
  // Bedrock's runtime also serves an OpenAI-compatible API under /openai/v1.
  const bedrockHost = bedrockRegionOf(host) !== undefined;
  if (path.endsWith('/converse-stream') || (bedrockHost && !path.startsWith('/openai')))
    return 'bedrock-converse';
  if (path.endsWith('/v2/chat')) return 'cohere';
  // Cohere's hosts also serve an OpenAI-compatible API under /compatibility/v1.
  if (/(^|\.)cohere\.(com|ai)$/.test(host) && !path.startsWith('/compatibility')) return 'cohere';
  if (path.endsWith('/responses')) return 'openai-responses';
  if (path.endsWith('/messages') || host === 'api.anthropic.com' || host.endsWith('.anthropic.com'))
    return 'anthropic';
  if (
    host === 'generativelanguage.googleapis.com' ||
    path.includes(':streamGenerateContent') ||
    /\/v1beta(\/|$)/.test(path)
  )
    return 'gemini';
  if (path.endsWith('/api') || path.endsWith('/api/chat') || base.port === '11434') return 'ollama';
  if (host === 'api.openai.com' || /(^|\/)v1$/.test(path)) return 'openai-chat';
  return undefined;
}
