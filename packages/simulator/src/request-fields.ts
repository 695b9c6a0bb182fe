import type { ProviderRoute } from './provider-route.ts';

/**
 * The only request fields the simulator reads: model, whether to stream, and Chat Completions'
 * `stream_options.include_usage`. Everything else in the body (the prompt) is read and discarded,
 * never kept or logged.
 */
export interface RequestFields {
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
}

export function requestFields(route: ProviderRoute, body: string | undefined): RequestFields {
  const parsed = parseObject(body);
  const model = route.model ?? (typeof parsed.model === 'string' ? parsed.model : 'unknown');
  const streamOptions = parsed.stream_options;
  const includeUsage =
    typeof streamOptions === 'object' &&
    streamOptions !== null &&
    (streamOptions as Record<string, unknown>).include_usage === true;
  // Ollama streams unless told not to; the other JSON APIs stream only when asked.
  const stream =
    route.stream ?? (route.format === 'ollama' ? parsed.stream !== false : parsed.stream === true);
  return { model, stream, includeUsage };
}

function parseObject(body: string | undefined): Record<string, unknown> {
  if (!body) return {};
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
