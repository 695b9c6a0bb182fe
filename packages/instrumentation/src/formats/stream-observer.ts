import type { OutputKind } from '../names.ts';

/** The wire formats lanewatch understands. `sse`, `ndjson` and `eventstream` are the unknown-format fallbacks. */
export type FormatName =
  | 'openai_chat'
  | 'openai_responses'
  | 'anthropic_messages'
  | 'gemini'
  | 'ollama'
  | 'cohere_chat'
  | 'bedrock_converse'
  | 'bedrock_invoke'
  | 'sse'
  | 'ndjson'
  | 'eventstream';

/**
 * What a format detector reports while it reads a response body. All calls are synchronous, made
 * from inside `feed`, so the receiver may read the clock when a call arrives. Nothing here ever
 * carries text from the stream: only kinds, counts and low-cardinality type names.
 */
export interface StreamObserver {
  /** One non-empty SSE event or NDJSON line was completed (the first one is t3). */
  event(): void;
  /**
   * The first time each kind of effective output appears (the first call is t4; `text` is t5), up to
   * and including the first text. After the first text — the last milestone — a kind seen for the
   * first time would change no milestone, so detectors stop looking for output: from then on they
   * read only what can still matter, the terminal event, usage and errors.
   */
  output(kind: OutputKind): void;
  /** Token counts from the stream's (or a whole answer's) own usage report; may repeat, the last defined value wins. */
  usage(inputTokens: number | undefined, outputTokens: number | undefined): void;
  /** The format's terminal event (`[DONE]`, `message_stop`, `response.completed`, `done: true`, …). */
  terminal(): void;
  /**
   * An in-stream error; `providerType` is the provider's own error type, sanitized by the detector:
   * `[a-z0-9_.]{1,48}`, `other` when the provider's value is not that, `untyped` when it gave none.
   */
  streamError(providerType: string): void;
  /**
   * Optional: a line (or an SSE event's data) over the detector's size cap was skipped without being
   * buffered. Its event still counts through `event()`; its content was not inspected.
   */
  oversizedLine?(): void;
}

export interface StreamDetector {
  /**
   * Bytes exactly as they arrived; keeps at most the incomplete line (and an SSE event waiting for its
   * blank line) between calls. Never throws of its own; an exception thrown by the observer goes
   * through to the caller.
   */
  feed(chunk: Uint8Array): void;
  /**
   * The body ended (call it before judging `truncated`): an NDJSON last line without its newline is
   * still read; an SSE event without its closing blank line is discarded, as the WHATWG rules say.
   */
  end(): void;
}

export interface DetectorOptions {
  /** Longest line (and SSE event data) read, in bytes; longer ones are skipped. Default 8 MiB. */
  readonly maxLineBytes?: number;
}

export interface Format {
  readonly name: FormatName;
  /** Whether the format has a terminal event, so a body that ends without it is `truncated`. */
  readonly hasTerminal: boolean;
  createDetector(observer: StreamObserver, options?: DetectorOptions): StreamDetector;
}
