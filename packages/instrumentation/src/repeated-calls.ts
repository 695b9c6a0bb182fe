/**
 * Retries that say nothing: the Vercel AI SDK, LangChain and Google's client (given
 * `retryOptions`) retry a failed call with their own loop, and send no `x-stainless-retry-count`
 * (LangChain even has the openai client send 0 on every one). What does say it is the request
 * itself: a retry sends the same bytes to the same endpoint once the failed call has ended.
 * lanewatch keeps, for calls that failed, a digest of their body — a number, never the bytes — and
 * numbers a call that repeats one the attempt after it.
 */

/** How long after a call that failed a byte-identical one is taken as its retry. */
export const REPEAT_WINDOW_MS = 120_000;
/** Failed calls remembered at once; the oldest is forgotten first. */
export const MAX_REMEMBERED = 1024;

/**
 * Bytes read whole at each end of a body chunk; between them samples of `WINDOW` bytes, one per
 * 512 bytes of the chunk (64 at least, 512 at most: ~500 bytes apart up to 256 KiB, 2 KiB apart
 * in 1 MiB).
 */
const EDGE = 512;
const WINDOW = 8;
const MIN_WINDOWS = 64;
const MAX_WINDOWS = 512;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The digest of a body before its first chunk. */
export const EMPTY_DIGEST = FNV_OFFSET;

/**
 * `digest` with one more chunk of a request body. Reads every byte of a chunk up to 1 KiB; of a
 * longer one its length, both ends and evenly spaced samples (see `EDGE`), at most 5 KiB, so a call
 * costs a few microseconds at most whatever its prompt's size. Two bodies of the same length that
 * differ only between samples digest alike: one is then read as a retry of the other only if sent
 * to the same endpoint after the other failed.
 */
export function digestChunk(digest: number, chunk: Uint8Array): number {
  const n = chunk.length;
  let h = digest;
  h = Math.imul(h ^ (n & 0xff), FNV_PRIME);
  h = Math.imul(h ^ ((n >>> 8) & 0xff), FNV_PRIME);
  h = Math.imul(h ^ ((n >>> 16) & 0xff), FNV_PRIME);
  h = Math.imul(h ^ (n >>> 24), FNV_PRIME);
  if (n <= 2 * EDGE) {
    for (let i = 0; i < n; i++) h = Math.imul(h ^ (chunk[i] as number), FNV_PRIME);
    return h >>> 0;
  }
  for (let i = 0; i < EDGE; i++) h = Math.imul(h ^ (chunk[i] as number), FNV_PRIME);
  const middle = n - 2 * EDGE - WINDOW;
  const windows = Math.min(MAX_WINDOWS, Math.max(MIN_WINDOWS, n >>> 9));
  for (let w = 0; w < windows; w++) {
    const start = EDGE + Math.floor((middle * w) / (windows - 1));
    for (let i = start; i < start + WINDOW; i++) h = Math.imul(h ^ (chunk[i] as number), FNV_PRIME);
  }
  for (let i = n - EDGE; i < n; i++) h = Math.imul(h ^ (chunk[i] as number), FNV_PRIME);
  return h >>> 0;
}

/** What lanewatch knows of one call when it ends, for `RepeatedCalls.attemptOf`. */
export interface CallSeen {
  /** Origin and path, without the query. */
  readonly endpoint: string;
  /** Request body bytes as sent; a call with none is never taken for a retry. */
  readonly sentBytes: number;
  readonly digest: number;
  /** When the call was handed to undici and when it ended (`performance.now()`). */
  readonly t1: number;
  readonly endAt: number;
  /** How it ended: a call the caller cancelled is not one a retry repeats (SDKs do not retry an abort). */
  readonly ended: 'ok' | 'failed' | 'cancelled';
}

interface Failed {
  readonly attempt: number;
  readonly endAt: number;
}

/** The calls that failed lately, by endpoint and body: what a retry would repeat. */
export class RepeatedCalls {
  readonly #failed = new Map<string, Failed>();

  /**
   * The attempt a call was, at least — 1, or one more than the call it repeats: one to the same
   * endpoint with the same body that failed and ended before this one began, at most
   * `REPEAT_WINDOW_MS` earlier. `known` is what the call itself said (its retry header, the
   * caller's context); the larger wins. The call is then remembered if it failed, and what it
   * repeated forgotten if it succeeded.
   */
  attemptOf(call: CallSeen, known: number | undefined): number {
    if (call.sentBytes === 0) return known ?? 1;
    const key = `${call.sentBytes}:${call.digest}:${call.endpoint}`;
    const earlier = this.#failed.get(key);
    let attempt = known ?? 1;
    if (earlier !== undefined && earlier.endAt <= call.t1 && call.t1 - earlier.endAt <= REPEAT_WINDOW_MS) {
      attempt = Math.max(attempt, earlier.attempt + 1);
    }
    if (call.ended === 'cancelled') return attempt;
    // A call that began before the failed one ended (a hedge, a duplicate) leaves it remembered.
    if (call.ended === 'ok') {
      if (earlier !== undefined && earlier.endAt <= call.t1) this.#failed.delete(key);
      return attempt;
    }
    this.#failed.delete(key);
    this.#failed.set(key, { attempt, endAt: call.endAt });
    this.#forgetOld(call.endAt);
    return attempt;
  }

  /** How many failed calls are remembered (for tests). */
  get size(): number {
    return this.#failed.size;
  }

  #forgetOld(now: number): void {
    for (const [key, failed] of this.#failed) {
      if (this.#failed.size <= MAX_REMEMBERED && now - failed.endAt <= REPEAT_WINDOW_MS) return;
      this.#failed.delete(key);
    }
  }
}
