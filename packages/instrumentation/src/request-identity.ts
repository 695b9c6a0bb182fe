import type { LaneMap } from './lane-map.ts';

/** What an undici `Request` exposes to diagnostics-channel subscribers (undici 6, 7 and 8). */
export interface UndiciRequestLike {
  readonly origin?: string | URL;
  readonly path: string;
  readonly method: string;
  /** undici ≥ 6.? keeps `[name, value, …]`; older releases a `name: value\r\n` string. */
  readonly headers?: string | readonly unknown[];
  readonly body?: unknown;
}

/** The wire family a request path speaks, which also names the provider for unknown hosts. */
export type PathFamily =
  | 'openai_chat'
  | 'openai_responses'
  | 'anthropic_messages'
  | 'gemini'
  | 'ollama'
  | 'cohere_chat'
  | 'bedrock_converse'
  | 'bedrock_invoke';

/**
 * Who a URL is — server, wire family, provider, operation, configured lane — decided once per origin
 * and path (query removed) and shared by every request to it: this runs on every request undici
 * creates, LLM or not.
 */
export interface Endpoint {
  readonly origin: string;
  readonly serverAddress: string;
  readonly serverPort: number | undefined;
  readonly family: PathFamily | undefined;
  readonly operation: string;
  readonly provider: string;
  /** From the lane map; `undefined` means "provider/model", decided when the model is known. */
  readonly configuredLane: string | undefined;
  /** The model named in the URL path (Gemini, Vertex AI, Bedrock, an Azure OpenAI deployment), if any. */
  readonly pathModel: string | undefined;
  /** The path without its query, which decides the response's format. */
  readonly path: string;
}

/** Who and what a request is, without its content. Decided once, when undici creates the request. */
export interface RequestIdentity {
  readonly endpoint: Endpoint;
  /** The model named in the URL (see `Endpoint.pathModel`); otherwise found in the request body as it is sent. */
  model: string | undefined;
  /** `x-stainless-retry-count` + 1, when an SDK sent it. */
  readonly headerAttempt: number | undefined;
  readonly contentLength: number | undefined;
}

const RETRY_COUNT = 'x-stainless-retry-count';
const CONTENT_LENGTH = 'content-length';

const KNOWN_HOSTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|\.)api\.openai\.com$/, 'openai'],
  [/\.openai\.azure\.com$/, 'azure.ai.openai'],
  [/\.cognitiveservices\.azure\.com$/, 'azure.ai.openai'],
  [/\.services\.ai\.azure\.com$/, 'azure.ai.inference'],
  [/^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com$/, 'aws.bedrock'],
  [/^bedrock-mantle\.[a-z0-9-]+\.api\.aws$/, 'aws.bedrock'], // Anthropic's and OpenAI's APIs on Bedrock
  [/(^|\.)api\.anthropic\.com$/, 'anthropic'],
  [/^generativelanguage\.googleapis\.com$/, 'gcp.gemini'],
  [/aiplatform\.googleapis\.com$/, 'gcp.vertex_ai'],
  [/^aiplatform\.[a-z0-9-]+\.rep\.googleapis\.com$/, 'gcp.vertex_ai'], // multi-region `us`, `eu`
  [/(^|\.)api\.deepseek\.com$/, 'deepseek'],
  [/(^|\.)api\.groq\.com$/, 'groq'],
  [/(^|\.)api\.mistral\.ai$/, 'mistral_ai'],
  [/(^|\.)openrouter\.ai$/, 'openrouter'],
  [/(^|\.)api\.x\.ai$/, 'x_ai'],
  [/(^|\.)api\.perplexity\.ai$/, 'perplexity'],
  [/(^|\.)api\.together\.xyz$/, 'together_ai'],
  [/(^|\.)api\.cohere\.(com|ai)$/, 'cohere'],
  [/(^|\.)api\.fireworks\.ai$/, 'fireworks_ai'],
  [/(^|\.)api\.cerebras\.ai$/, 'cerebras'],
  [/(^|\.)api\.deepinfra\.com$/, 'deepinfra'],
  [/(^|\.)api\.sambanova\.ai$/, 'sambanova'],
  [/^(router|api-inference)\.huggingface\.co$/, 'huggingface'],
  [/^integrate\.api\.nvidia\.com$/, 'nvidia'],
];

const FAMILY_PROVIDER: Readonly<Record<PathFamily, string>> = {
  openai_chat: 'openai',
  openai_responses: 'openai',
  anthropic_messages: 'anthropic',
  gemini: 'gcp.gemini',
  ollama: 'ollama',
  cohere_chat: 'cohere',
  bedrock_converse: 'aws.bedrock',
  bedrock_invoke: 'aws.bedrock',
};

export function pathFamilyOf(path: string): PathFamily | undefined {
  if (path.endsWith('/chat/completions')) return 'openai_chat';
  if (path.endsWith('/responses')) return 'openai_responses';
  if (path.endsWith('/v1/messages')) return 'anthropic_messages';
  if (path.includes(':streamGenerateContent') || path.includes(':generateContent')) return 'gemini';
  if (path.endsWith('/api/chat') || path.endsWith('/api/generate')) return 'ollama';
  if (path.endsWith('/v2/chat')) return 'cohere_chat';
  return vertexPartnerOf(path)?.family ?? bedrockOperationOf(path)?.family;
}

/**
 * Amazon Bedrock's model operations: `/model/{modelId}/{converse|converse-stream|invoke|
 * invoke-with-response-stream}`. The model ID is percent-encoded by the clients
 * (`anthropic.claude-sonnet-4-20250514-v1%3A0`); an ARN (an inference profile, a provisioned model)
 * names the model by its last segment, without the account it belongs to.
 */
const BEDROCK_OPERATION =
  /\/model\/([^?#]{1,512}?)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

/** The family and model of a Bedrock model-operation path, if `path` is one. */
export function bedrockOperationOf(
  path: string,
): { family: 'bedrock_converse' | 'bedrock_invoke'; model: string | undefined } | undefined {
  if (!path.endsWith('/converse') && !path.endsWith('-stream') && !path.endsWith('/invoke')) return undefined;
  const m = BEDROCK_OPERATION.exec(path);
  if (m === null) return undefined;
  const family = (m[2] as string).startsWith('converse') ? 'bedrock_converse' : 'bedrock_invoke';
  let model: string | undefined;
  try {
    model = decodeURIComponent(m[1] as string);
  } catch {
    model = undefined; // not valid percent-encoding: no model rather than a garbled one
  }
  if (model?.startsWith('arn:')) model = model.slice(model.lastIndexOf('/') + 1) || undefined;
  return { family, model };
}

/**
 * Vertex AI's partner models answer at `…/publishers/{publisher}/models/{model}:streamRawPredict`
 * (`:rawPredict` without streaming) in their maker's own wire format: Anthropic's Messages, Mistral's
 * Chat Completions. The model is named in the path only (Anthropic's Vertex client takes it out of
 * the body).
 */
const VERTEX_PARTNER =
  /\/publishers\/(anthropic|mistralai)\/models\/([^/:]{1,128}):(?:streamRawPredict|rawPredict)$/;
const PARTNER_FAMILY: Readonly<Record<string, PathFamily>> = {
  anthropic: 'anthropic_messages',
  mistralai: 'openai_chat',
};

/** The family and model of a Vertex AI partner-model path, if `path` is one. */
export function vertexPartnerOf(path: string): { family: PathFamily; model: string } | undefined {
  if (!path.endsWith('Predict')) return undefined;
  const m = VERTEX_PARTNER.exec(path);
  const family = m === null ? undefined : PARTNER_FAMILY[m[1] as string];
  return family === undefined ? undefined : { family, model: m?.[2] as string };
}

/** Azure OpenAI names the deployment, not the model, in the path; the body may name no model at all. */
const AZURE_DEPLOYMENT = /\/openai\/deployments\/([A-Za-z0-9._-]{1,128})\/chat\/completions$/;

/** The model a path names: Gemini's and Vertex AI's `models/{model}:…`, an Azure OpenAI deployment. */
function pathModelOf(family: PathFamily | undefined, path: string): string | undefined {
  if (family === 'gemini') return geminiModelOf(path);
  if (family === 'openai_chat' && path.includes('/deployments/')) return AZURE_DEPLOYMENT.exec(path)?.[1];
  if (family === 'bedrock_converse' || family === 'bedrock_invoke') return bedrockOperationOf(path)?.model;
  return vertexPartnerOf(path)?.model;
}

function operationOf(family: PathFamily | undefined, path: string): string {
  if (family === 'gemini') return 'generate_content';
  if (family === 'ollama' && path.endsWith('/api/generate')) return 'text_completion';
  return 'chat';
}

/** The endpoints of one lane map, by origin and then path; bounded, as paths can carry IDs. */
export class Endpoints {
  readonly #lanes: LaneMap;
  readonly #byOrigin = new Map<string, Map<string, Endpoint>>();
  #size = 0;

  constructor(lanes: LaneMap) {
    this.#lanes = lanes;
  }

  /** `origin` as undici has it (`http://host:port`, maybe with a trailing slash); `path` with any query. */
  of(rawOrigin: string, rawPath: string): Endpoint {
    let paths = this.#byOrigin.get(rawOrigin);
    let endpoint = paths?.get(rawPath);
    if (endpoint !== undefined) return endpoint;
    endpoint = endpointOf(rawOrigin, rawPath, this.#lanes);
    if (this.#size >= MAX_ENDPOINTS) {
      this.#byOrigin.clear();
      this.#size = 0;
      paths = undefined;
    }
    if (paths === undefined) {
      paths = new Map();
      this.#byOrigin.set(rawOrigin, paths);
    }
    paths.set(rawPath, endpoint);
    this.#size += 1;
    return endpoint;
  }
}

const MAX_ENDPOINTS = 1024;

function endpointOf(rawOrigin: string, rawPath: string, lanes: LaneMap): Endpoint {
  const target = absoluteTarget(rawPath);
  const q = target.path.indexOf('?');
  // The query is dropped here, first: some providers carry API keys in it.
  const path = q === -1 ? target.path : target.path.slice(0, q);
  const originOf = target.origin ?? rawOrigin;
  const origin = originOf.endsWith('/') ? originOf.slice(0, -1) : originOf;
  const server = serverOf(origin);
  // Cohere's v1 chat path is too plain to name a family on any host: only on Cohere's own.
  const family =
    pathFamilyOf(path) ??
    (server.knownProvider === 'cohere' && path.endsWith('/v1/chat') ? 'cohere_chat' : undefined);
  const { hostname, port } = server;
  return {
    origin,
    serverAddress: hostname,
    serverPort: port,
    family,
    operation: operationOf(family, path),
    provider:
      server.knownProvider ?? (family ? FAMILY_PROVIDER[family] : port === 11434 ? 'ollama' : 'unknown'),
    configuredLane: lanes.size > 0 ? lanes.laneOf(origin, path) : undefined,
    pathModel: family === undefined ? undefined : pathModelOf(family, path),
    path,
  };
}

/**
 * The target of a request in absolute form (RFC 9112 §3.2.2), as a forward proxy is sent it: the
 * undici 8 package's ProxyAgent sends an `http://` target so, with the proxy as the request's origin
 * (an `https://` one goes through a CONNECT tunnel, its origin the target's). The call is the
 * target's — its server, provider and lane — not the proxy's.
 */
function absoluteTarget(rawPath: string): { origin: string | undefined; path: string } {
  if (rawPath.startsWith('/')) return { origin: undefined, path: rawPath };
  const url = URL.parse(rawPath);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    return { origin: undefined, path: rawPath };
  }
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

/**
 * Identifies a request, or returns `undefined` when it cannot be an LLM stream worth tracking:
 * not a known LLM path, not a configured lane, and not a POST (unknown POSTs are kept until their
 * response's content type says whether they stream).
 */
export function identifyRequest(
  request: UndiciRequestLike,
  endpoints: Endpoints,
): RequestIdentity | undefined {
  const origin = request.origin;
  if (origin === undefined) return undefined;
  const endpoint = endpoints.of(typeof origin === 'string' ? origin : origin.origin, request.path);
  if (endpoint.family === undefined && endpoint.configuredLane === undefined && request.method !== 'POST') {
    return undefined;
  }
  const { headerAttempt, contentLength } = readHeaders(request.headers);
  return {
    endpoint,
    model: endpoint.pathModel,
    headerAttempt,
    contentLength: contentLength ?? byteLengthOf(request.body),
  };
}

const NO_HEADERS = { headerAttempt: undefined, contentLength: undefined } as const;

/** `x-stainless-retry-count` + 1 and `content-length`, the two request headers lanewatch reads. */
function readHeaders(headers: string | readonly unknown[] | undefined): {
  headerAttempt: number | undefined;
  contentLength: number | undefined;
} {
  if (headers === undefined) return NO_HEADERS;
  let headerAttempt: number | undefined;
  let contentLength: number | undefined;
  const visit = (name: string, value: string) => {
    if (name.length === RETRY_COUNT.length && name.toLowerCase() === RETRY_COUNT) {
      const n = Number.parseInt(value, 10);
      if (Number.isFinite(n) && n >= 0) headerAttempt = n + 1;
    } else if (name.length === CONTENT_LENGTH.length && name.toLowerCase() === CONTENT_LENGTH) {
      const n = Number.parseInt(value, 10);
      if (Number.isFinite(n) && n >= 0) contentLength = n;
    }
  };
  if (typeof headers === 'string') {
    forEachHeader(headers, visit);
  } else {
    // Only names of the two lengths are worth a look: no string is made for any other header.
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const name = headers[i] as { length?: unknown } | undefined;
      const length = name?.length;
      if (length !== RETRY_COUNT.length && length !== CONTENT_LENGTH.length) continue;
      const value = headers[i + 1];
      if (value === undefined) continue;
      visit(String(name), Array.isArray(value) ? String(value[0]) : String(value));
    }
  }
  return headerAttempt === undefined && contentLength === undefined
    ? NO_HEADERS
    : { headerAttempt, contentLength };
}

interface Server {
  readonly hostname: string;
  readonly port: number | undefined;
  readonly knownProvider: string | undefined;
}

/** Parsed once per origin: a process talks to few servers, and this runs on every request. */
const servers = new Map<string, Server>();

function serverOf(origin: string): Server {
  let server = servers.get(origin);
  if (server !== undefined) return server;
  try {
    const url = new URL(origin);
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    server = {
      hostname,
      port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
      knownProvider: KNOWN_HOSTS.find(([pattern]) => pattern.test(hostname))?.[1],
    };
  } catch {
    server = { hostname: '', port: undefined, knownProvider: undefined };
  }
  if (servers.size >= 1024) servers.clear();
  servers.set(origin, server);
  return server;
}

function geminiModelOf(path: string): string | undefined {
  const m = /\/models\/([^/:]{1,128}):/.exec(path);
  return m?.[1];
}

function byteLengthOf(body: unknown): number | undefined {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return undefined;
}

/** Calls `visit` for each request header; names are as sent, values as strings. */
export function forEachHeader(
  headers: string | readonly unknown[] | undefined,
  visit: (name: string, value: string) => void,
): void {
  if (headers === undefined) return;
  if (typeof headers === 'string') {
    for (const line of headers.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) visit(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    return;
  }
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i];
    const value = headers[i + 1];
    if (name === undefined || value === undefined) continue;
    visit(String(name), Array.isArray(value) ? String(value[0]) : String(value));
  }
}

const MODEL_KEY = Buffer.from('"model"');

/**
 * The top-level `"model": "…"` value in a JSON request body, read without decoding the body. A
 * prompt that mentions `"model"` is escaped (`\"model\"`), so it cannot match: the key must be
 * followed by optional spaces, a colon and an opening quote. Nothing else of the body is kept.
 */
export function modelFromJsonBody(body: Uint8Array): string | undefined {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let at = buf.indexOf(MODEL_KEY);
  while (at !== -1) {
    let i = at + MODEL_KEY.length;
    while (i < buf.length && isJsonSpace(buf[i])) i++;
    if (buf[i] === 0x3a /* : */) {
      i++;
      while (i < buf.length && isJsonSpace(buf[i])) i++;
      if (buf[i] === 0x22 /* " */) {
        const start = i + 1;
        const end = buf.indexOf(0x22, start);
        if (end > start && end - start <= 128) {
          const model = buf.toString('utf8', start, end);
          if (!model.includes('\\')) return model;
        }
        return undefined;
      }
    }
    at = buf.indexOf(MODEL_KEY, at + 1);
  }
  return undefined;
}

function isJsonSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
