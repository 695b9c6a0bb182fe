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

export interface StreamReport {
  event(): void;
  /** Reports `kind` the first time only, and nothing once text was reported (the last milestone). */
  output(kind: OutputKind): void;
  /** Whether `kind` is no longer worth looking for: reported, or text was. */
  has(kind: OutputKind): boolean;
  /** The union of the masks of the kinds still worth looking for: none once text was reported. */
  unseen(masks: Readonly<Record<OutputKind, number>>): number;
  usage(inputTokens: unknown, outputTokens: unknown): void;
  /** Reports the terminal event the first time only. */
  terminal(): void;
  readonly terminated: boolean;
  streamError(providerType: unknown): void;
  oversizedLine(): void;
}

export function createStreamReport(observer: StreamObserver): StreamReport {
  let text = false;
  let reasoning = false;
  let toolCall = false;
  let terminated = false;

  return {
    event() {
      observer.event();
    },
    output(kind) {
      if (text) return;
      if (kind === 'text') {
        if (text) return;
        text = true;
      } else if (kind === 'reasoning') {
        if (reasoning) return;
        reasoning = true;
      } else {
        if (toolCall) return;
        toolCall = true;
      }
      observer.output(kind);
    },
    has(kind) {
      return text || (kind === 'reasoning' ? reasoning : kind === 'tool_call' ? toolCall : false);
    },
    unseen(masks) {
      if (text) return 0;
      return masks.text | (reasoning ? 0 : masks.reasoning) | (toolCall ? 0 : masks.tool_call);
    },
    usage(inputTokens, outputTokens) {
      const input = tokenCount(inputTokens);
      const output = tokenCount(outputTokens);
      if (input !== undefined || output !== undefined) observer.usage(input, output);
    },
    terminal() {
      if (terminated) return;
      terminated = true;
      observer.terminal();
    },
    get terminated() {
      return terminated;
    },
    streamError(providerType) {
      observer.streamError(sanitizeErrorType(providerType));
    },
    oversizedLine() {
      observer.oversizedLine?.();
    },
  };
}
