import type { Context } from '@opentelemetry/api';
import type { CallResult } from './call-telemetry.ts';
import type { DecodingSink } from './content-coding.ts';
import type { Format, StreamDetector, StreamObserver } from './formats/stream-observer.ts';
import type { OutputKind } from './names.ts';
import { EMPTY_DIGEST } from './repeated-calls.ts';
import type { RequestIdentity } from './request-identity.ts';

/**
 * Everything lanewatch keeps about one streaming call while it runs: instants on the
 * `performance.now()` clock, counts, and classes. Never any text from the request or the stream.
 *
 * It is the format detector's observer, so the hot path is: undici hands a chunk → the detector
 * splits and classifies it → these methods read the clock only when a milestone is first reached.
 */
export class CallRecord implements StreamObserver, DecodingSink {
  readonly identity: RequestIdentity;
  /** The caller's context when the request was handed to undici: the span's parent. */
  readonly parentContext: Context;
  /** t1: the request was handed to undici. Every other instant is measured from it. */
  readonly t1: number;
  headersAt: number | undefined;
  firstChunkAt: number | undefined;
  firstOutputAt: number | undefined;
  outputKind: OutputKind | undefined;
  firstTextAt: number | undefined;
  endAt: number | undefined;
  chunks = 0;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  statusCode: number | undefined;
  terminalSeen = false;
  /** Request body bytes as sent, when undici reports them. */
  sentBytes = 0;
  /** A digest of the request body as sent (`digestChunk`): a number, never the bytes. */
  bodyDigest = EMPTY_DIGEST;
  streamErrorType: string | undefined;
  format: Format | undefined;
  detector: StreamDetector | undefined;
  /** Body chunks come from the dispatcher pass-through, so channel chunks must be ignored. */
  chunksFromPassThrough = false;
  finished = false;
  /** The attempt number the caller put in its context (`withAttempt`), if any. */
  contextAttempt: number | undefined;
  /** The attempt number, decided when the call ends (see `inferRetries`). */
  attempt = 1;
  /** Set while a coded body's decoded bytes are read: the instant they arrived (see `DecodingSink`). */
  arrivedAt: number | undefined;
  /** A coded body lanewatch could not decode, or whose coding it cannot read: its content is not judged. */
  unreadBody = false;

  constructor(identity: RequestIdentity, parentContext: Context, t1: number) {
    this.identity = identity;
    this.parentContext = parentContext;
    this.t1 = t1;
  }

  event(): void {
    this.chunks++;
    if (this.firstChunkAt === undefined) this.firstChunkAt = this.arrivedAt ?? performance.now();
  }

  output(kind: OutputKind): void {
    if (this.firstOutputAt === undefined) {
      this.firstOutputAt = this.arrivedAt ?? performance.now();
      this.outputKind = kind;
    }
    if (kind === 'text' && this.firstTextAt === undefined)
      this.firstTextAt = this.arrivedAt ?? performance.now();
  }

  usage(inputTokens: number | undefined, outputTokens: number | undefined): void {
    if (inputTokens !== undefined) this.inputTokens = inputTokens;
    if (outputTokens !== undefined) this.outputTokens = outputTokens;
  }

  terminal(): void {
    this.terminalSeen = true;
  }

  streamError(providerType: string): void {
    this.streamErrorType ??= providerType;
  }

  undecodable(): void {
    this.unreadBody = true;
  }
}

/** How a finished call ended, decided from what was observed (DESIGN §2). */
export function outcomeOf(
  record: CallRecord,
  transportError: { cancelled: boolean; type: string } | undefined,
): CallResult {
  if (transportError?.cancelled) {
    // A caller that lets go once the format's terminal event is in ended a whole call: the openai
    // client stops reading at `[DONE]`, before the body's end whenever that comes apart from it —
    // an HTTP/2 END_STREAM frame of its own, a server or proxy that closes the body later.
    if (!record.terminalSeen) return { outcome: 'cancelled', errorType: undefined };
  } else if (transportError) {
    return { outcome: 'error', errorType: transportError.type };
  }
  const status = record.statusCode;
  if (status !== undefined && status >= 400) {
    return { outcome: 'error', errorType: httpErrorType(status) };
  }
  if (record.streamErrorType !== undefined) {
    return { outcome: 'error', errorType: `stream_error:${record.streamErrorType}` };
  }
  if (record.format?.hasTerminal && !record.terminalSeen && !record.unreadBody) {
    return { outcome: 'truncated', errorType: undefined };
  }
  return { outcome: 'ok', errorType: undefined };
}

export function httpErrorType(status: number): string {
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'http_5xx';
  if (status === 401 || status === 403) return 'unauthorized';
  return 'http_4xx';
}
