import type { OutputKind } from '../names.ts';
import { tokenCount } from './json-scan.ts';
import type { StreamObserver } from './stream-observer.ts';

/**
 * The one way a detector talks to its observer. It holds the rules every format shares: each output
 * kind is reported once, the terminal event once, token counts only when they are counts, and error
 * types only once sanitized — so no detector can pass on a value read from the stream unchecked.
 */

/** Reported when the provider's error carries no type or code at all (Ollama, some compatible servers). */
export const UNTYPED_STREAM_ERROR = 'untyped';
/** Reported when the provider's error type is not a short lowercase identifier. */
export const OTHER_STREAM_ERROR = 'other';

const ERROR_TYPE_SHAPE = /^[a-z0-9_.]{1,48}$/;

/**
 * A provider's error type or code as a low-cardinality label: lowercased, kept if it is 1–48 of
 * `[a-z0-9_.]`, else `other`; `untyped` when there is none. Codes may be numbers (`502`).
 */
export function sanitizeErrorType(value: unknown): string {
  if (value === undefined || value === null || value === '') return UNTYPED_STREAM_ERROR;
  let label: string;
  if (typeof value === 'string') {
    if (value.length > 48) return OTHER_STREAM_ERROR;
    label = value.toLowerCase();
  } else if (typeof value === 'number' && Number.isSafeInteger(value)) {
    label = String(value);
  } else {
    return OTHER_STREAM_ERROR;
  }
  return ERROR_TYPE_SHAPE.test(label) ? label : OTHER_STREAM_ERROR;
}

/**
 * A class rather than an object of closures: every stream gets one, and an object literal with a
 * getter costs far more to create than an instance whose methods live on a shared prototype.
 */
export class StreamReport {
  readonly #observer: StreamObserver;
  #text = false;
  #reasoning = false;
  #toolCall = false;
  #terminated = false;

  constructor(observer: StreamObserver) {
    this.#observer = observer;
  }

  event(): void {
    this.#observer.event();
  }

  /** Reports `kind` the first time only, and nothing once text was reported (the last milestone). */
  output(kind: OutputKind): void {
    if (this.#text) return;
    if (kind === 'text') {
      this.#text = true;
    } else if (kind === 'reasoning') {
      if (this.#reasoning) return;
      this.#reasoning = true;
    } else {
      if (this.#toolCall) return;
      this.#toolCall = true;
    }
    this.#observer.output(kind);
  }

  /** Whether `kind` is no longer worth looking for: reported, or text was. */
  has(kind: OutputKind): boolean {
    return (
      this.#text || (kind === 'reasoning' ? this.#reasoning : kind === 'tool_call' ? this.#toolCall : false)
    );
  }

  /** The union of the masks of the kinds still worth looking for: none once text was reported. */
  unseen(masks: Readonly<Record<OutputKind, number>>): number {
    if (this.#text) return 0;
    return masks.text | (this.#reasoning ? 0 : masks.reasoning) | (this.#toolCall ? 0 : masks.tool_call);
  }

  usage(inputTokens: unknown, outputTokens: unknown): void {
    const input = tokenCount(inputTokens);
    const output = tokenCount(outputTokens);
    if (input !== undefined || output !== undefined) this.#observer.usage(input, output);
  }

  /** Reports the terminal event the first time only. */
  terminal(): void {
    if (this.#terminated) return;
    this.#terminated = true;
    this.#observer.terminal();
  }

  get terminated(): boolean {
    return this.#terminated;
  }

  streamError(providerType: unknown): void {
    this.#observer.streamError(sanitizeErrorType(providerType));
  }

  oversizedLine(): void {
    this.#observer.oversizedLine?.();
  }
}

export function createStreamReport(observer: StreamObserver): StreamReport {
  return new StreamReport(observer);
}
