import type { ErrorScript, StreamScript } from './script.ts';

/**
 * The streaming wire formats the simulator speaks. `bedrock-invoke` is Amazon Bedrock's
 * InvokeModelWithResponseStream carrying Anthropic Messages events; `bedrock-converse` is its
 * ConverseStream API. Both frame their events in the AWS event stream (binary) encoding.
 */
export type WireFormat =
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'gemini'
  | 'ollama'
  | 'cohere'
  | 'cohere-v1'
  | 'bedrock-invoke'
  | 'bedrock-converse';

export const WIRE_FORMATS: readonly WireFormat[] = [
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'ollama',
  'cohere',
  'cohere-v1',
  'bedrock-invoke',
  'bedrock-converse',
];

/**
 * What one piece puts on the wire: text (SSE, NDJSON; written as UTF-8) or bytes (the AWS event
 * stream's binary frames, written as they are). Empty where the format has nothing for the piece.
 */
export type WirePiece = string | Uint8Array;

/** The number of bytes a piece puts on the wire. */
export function wirePieceBytes(piece: WirePiece): number {
  return typeof piece === 'string' ? Buffer.byteLength(piece) : piece.byteLength;
}

/** What a writer may know about the request it answers; everything else comes from the script. */
export interface WriteContext {
  /** The requested model (echoed in every event that names it). */
  readonly model: string;
  /** Wall-clock epoch milliseconds of the response, for `created` fields (not for timing). */
  readonly createdAtMs: number;
  /** Seed for response, message and call ids. */
  readonly id: string;
  /** Chat Completions: the request asked for `stream_options.include_usage`. */
  readonly includeUsage: boolean;
  /** Ollama: `/api/chat` or `/api/generate`. */
  readonly endpoint?: 'chat' | 'generate';
  /**
   * The request's `Accept` named `text/event-stream`. Cohere's v1 chat then streams server-sent
   * events instead of JSON lines; the other formats have one framing and ignore it.
   */
  readonly acceptsEventStream?: boolean;
}

export interface HttpReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * One format's writer. `Bytes` is what its pieces are: `string` for the text formats, `Uint8Array`
 * for the binary ones; a `WireWriter` without it may be either.
 */
export interface WireWriter<Bytes extends WirePiece = WirePiece> {
  readonly format: WireFormat;
  /** Response headers of a 200 stream. */
  streamHeaders(context: WriteContext): Record<string, string>;
  /** What each piece writes, in order; empty where the format has no event for that piece. */
  render(script: StreamScript, context: WriteContext): Bytes[];
  /** The whole response of a non-streaming call (`stream: false`, Gemini `generateContent`). */
  complete(script: StreamScript, context: WriteContext): HttpReply;
  /** A complete non-streaming error response with the provider's JSON error body. */
  errorReply(script: ErrorScript, context: WriteContext): HttpReply;
}

/** `retry-after` in whole seconds (RFC 9110 §10.2.3) and the finer `retry-after-ms` both SDKs read. */
export function retryHeaders(script: ErrorScript): Record<string, string> {
  const seconds = script.retryAfterSeconds;
  if (seconds === undefined) return {};
  return {
    'retry-after': String(Math.max(0, Math.ceil(seconds))),
    'retry-after-ms': String(Math.max(0, Math.round(seconds * 1000))),
  };
}

/** Groups tool-call fragments: the index of the last fragment of each call, for whole-call formats. */
export function lastFragmentOfEachCall(script: StreamScript): Map<number, number> {
  const last = new Map<number, number>();
  script.pieces.forEach((piece, index) => {
    if (piece.kind === 'tool-call') last.set(piece.call, index);
  });
  return last;
}

/** Raised when a script cannot be written in a format (e.g. a whole-call format given broken JSON). */
export class WireFormatError extends Error {
  override readonly name = 'WireFormatError';
}

/** Arguments of a whole tool call (Gemini, Ollama send calls whole): the fragments must join into JSON. */
export function wholeCallArguments(json: string, call: number, format: WireFormat): unknown {
  try {
    return JSON.parse(json === '' ? '{}' : json);
  } catch {
    throw new WireFormatError(
      `${format} sends whole tool calls: the arguments of tool call ${call} are not complete JSON (${json.length} characters)`,
    );
  }
}
