/**
 * The format-neutral description of one response. A `respond` function returns a `Script` per
 * request; a wire-format writer turns a stream script into the bytes one provider would send, one
 * write per piece, and the server writes each piece at its scheduled time.
 *
 * Delays are milliseconds. `headersDelayMs` counts from the request's arrival (its headers reaching
 * the server); each piece's `delayMs` counts from the previous piece (the first from the headers).
 * The server turns them into absolute times once, so a late write never pushes the later ones back.
 */

/** Why the model stopped: mapped to `finish_reason`, `stop_reason`, `finishReason`, `done_reason`. */
export type FinishReason = 'stop' | 'tool_calls' | 'length';

/** A provider-side failure, mapped to each format's own error type (e.g. `overloaded_error`). */
export type ProviderErrorType = 'overloaded' | 'internal' | 'rate_limited';

export type Piece =
  /** The format's meta event: role delta, `message_start`, `response.created`; none in Gemini/Ollama. */
  | { readonly kind: 'start'; readonly delayMs: number }
  /** A reasoning delta (`reasoning_content`, thinking, reasoning summary, `thought` part). */
  | { readonly kind: 'reasoning'; readonly delayMs: number; readonly text: string }
  /** A visible text delta. */
  | { readonly kind: 'text'; readonly delayMs: number; readonly text: string }
  /**
   * A fragment of one tool call's JSON arguments; `call` numbers the calls of the response from 0.
   * Formats that send whole calls (Gemini, Ollama) write the call at its last fragment.
   */
  | {
      readonly kind: 'tool-call';
      readonly delayMs: number;
      readonly call: number;
      readonly name: string;
      readonly args: string;
    }
  /** The stop event: `finish_reason` chunk, `message_delta`, the final Gemini chunk, Ollama's `done: true`. */
  | { readonly kind: 'finish'; readonly delayMs: number; readonly reason: FinishReason }
  /** The usage report where it is an event of its own (Chat Completions with `include_usage`). */
  | { readonly kind: 'usage'; readonly delayMs: number }
  /** The terminal event: `data: [DONE]`, `message_stop`, `response.completed`; none in Gemini/Ollama. */
  | { readonly kind: 'done'; readonly delayMs: number }
  /** An error reported inside a 200 stream (Anthropic `event: error`, an `error` chunk, …). */
  | {
      readonly kind: 'error';
      readonly delayMs: number;
      readonly errorType: ProviderErrorType;
      readonly message?: string;
    }
  /** A keep-alive: an SSE comment (`: OPENROUTER PROCESSING`) or Anthropic's `ping`. */
  | { readonly kind: 'heartbeat'; readonly delayMs: number }
  /** Fault: reset the connection (TCP RST) here, mid-body. */
  | { readonly kind: 'reset'; readonly delayMs: number }
  /** Fault: stop writing here and keep the connection open until the client or `close()` ends it. */
  | { readonly kind: 'hang'; readonly delayMs: number };

export type PieceKind = Piece['kind'];

/** Token counts the stream reports; computed from the pieces when left out. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens?: number;
}

/**
 * A 200 streaming response. The body ends after the last piece; a script without the format's
 * terminal piece (`done`, or `finish` for Gemini, Ollama and Cohere) is a stream that ends early.
 */
export interface StreamScript {
  readonly kind: 'stream';
  readonly headersDelayMs: number;
  readonly pieces: readonly Piece[];
  readonly usage?: Usage;
  /** Seed for the response and call ids the writers generate (default: the request index). */
  readonly id?: string;
}

/** A non-streaming error response with the provider's JSON error body. */
export interface ErrorScript {
  readonly kind: 'error';
  readonly status: number;
  readonly headersDelayMs: number;
  /** Sent as `retry-after` (whole seconds, rounded up) and `retry-after-ms`. */
  readonly retryAfterSeconds?: number;
  readonly message?: string;
}

/** Fault: never answer. The request stays open until the client gives up or the server closes. */
export interface NoAnswerScript {
  readonly kind: 'no-answer';
}

/** Fault: reset the connection before any response header. */
export interface ResetScript {
  readonly kind: 'reset';
  readonly delayMs: number;
}

export type Script = StreamScript | ErrorScript | NoAnswerScript | ResetScript;

/** Kinds of piece that are model output (DESIGN §1: the first one is t4, `first_output`). */
export const OUTPUT_KINDS: ReadonlySet<PieceKind> = new Set(['reasoning', 'text', 'tool-call']);

/** The usage a stream reports: the script's, or one token per output piece. */
export function scriptUsage(script: StreamScript): Usage {
  if (script.usage) return script.usage;
  let outputTokens = 0;
  let reasoningTokens = 0;
  for (const piece of script.pieces) {
    if (piece.kind === 'reasoning') reasoningTokens++;
    if (OUTPUT_KINDS.has(piece.kind)) outputTokens++;
  }
  return { inputTokens: 0, outputTokens, reasoningTokens };
}

/** Offsets (ms from the request's arrival) at which the headers and each piece are due. */
export function scheduleOf(script: StreamScript): { headersAtMs: number; piecesAtMs: number[] } {
  let at = script.headersDelayMs;
  const headersAtMs = at;
  const piecesAtMs: number[] = [];
  for (const piece of script.pieces) {
    at += piece.delayMs;
    piecesAtMs.push(at);
  }
  return { headersAtMs, piecesAtMs };
}

/** Why a script cannot be played; thrown by `validateScript` with the offending piece. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
}

/** Checks what the type system cannot: finite, non-negative delays and statuses a server can send. */
export function validateScript(script: Script): void {
  const delay = (value: number, where: string) => {
    if (!Number.isFinite(value) || value < 0) {
      throw new ScriptError(`${where}: delay must be a finite number of milliseconds ≥ 0, got ${value}`);
    }
  };
  switch (script.kind) {
    case 'stream':
      delay(script.headersDelayMs, 'headersDelayMs');
      script.pieces.forEach((piece, index) => {
        delay(piece.delayMs, `pieces[${index}] (${piece.kind})`);
        if (piece.kind === 'tool-call' && (!Number.isInteger(piece.call) || piece.call < 0)) {
          throw new ScriptError(
            `pieces[${index}] (tool-call): call must be an integer ≥ 0, got ${piece.call}`,
          );
        }
      });
      return;
    case 'error':
      delay(script.headersDelayMs, 'headersDelayMs');
      if (!Number.isInteger(script.status) || script.status < 400 || script.status > 599) {
        throw new ScriptError(`error status must be an integer from 400 to 599, got ${script.status}`);
      }
      return;
    case 'reset':
      delay(script.delayMs, 'delayMs');
      return;
    case 'no-answer':
      return;
  }
}
