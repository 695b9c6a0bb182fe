import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { StreamDetector } from './formats/index.ts';

/**
 * Response bodies with a content coding (`Content-Encoding: gzip`, `br`, …): undici hands lanewatch
 * the bytes as they came off the wire, compressed, and decodes them — in fetch — only on the way to
 * the application. Gateways and providers compress event streams whenever the request accepts it,
 * and fetch asks for `gzip, deflate` (`br, gzip, deflate` over https) on every request, so
 * lanewatch decodes a copy of each coded stream for its detector, with the same decoders fetch uses.
 *
 * Node's zlib decodes a stream only asynchronously (on the thread pool), so each chunk's arrival
 * time travels with it: what the decoder makes of a chunk is read as if it had arrived when the
 * chunk did, and every milestone keeps the instant its bytes came in.
 */

/** A coding lanewatch decodes, by its name in `Content-Encoding` (`x-gzip` is `gzip`). */
export type ContentCoding = 'gzip' | 'deflate' | 'br' | 'zstd';

const hasZstd = typeof (zlib as { createZstdDecompress?: unknown }).createZstdDecompress === 'function';

/**
 * The coding a `Content-Encoding` value names: `undefined` for none (absent, empty or `identity`);
 * `null` for one lanewatch cannot read — a coding it does not know, or more than one applied in
 * turn (no provider or gateway sends an event stream so).
 */
export function contentCodingOf(value: string | undefined): ContentCoding | undefined | null {
  if (value === undefined) return undefined;
  let coding: ContentCoding | undefined;
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase();
    if (name === '' || name === 'identity') continue;
    const known = knownCoding(name);
    if (known === undefined || coding !== undefined) return null;
    coding = known;
  }
  return coding;
}

function knownCoding(name: string): ContentCoding | undefined {
  switch (name) {
    case 'gzip':
    case 'x-gzip':
      return 'gzip';
    case 'deflate':
      return 'deflate';
    case 'br':
      return 'br';
    case 'zstd':
      return hasZstd ? 'zstd' : undefined;
    default:
      return undefined;
  }
}

/** What the decoding detector reports to the call it reads for. */
export interface DecodingSink {
  /**
   * While set, the bytes being read arrived at this `performance.now()` instant: the milestones
   * they reach are stamped with it, not with the moment the decoder gave them back.
   */
  arrivedAt: number | undefined;
  /**
   * The first text's instant, once seen: the last milestone. After it no instant is read from the
   * stream, so chunks are decoded in batches (the usage, the terminal event and errors need their
   * bytes, not their times).
   */
  readonly firstTextAt: number | undefined;
  /** The coded body could not be decoded: it is read no further, and not judged by its content. */
  undecodable(reason: string): void;
}

/**
 * The most coded bytes a stream may have waiting for its decoder. The decoder keeps pace with any
 * network (it is the application's own decoder's twin), so only a pathological body reaches this;
 * it is then read no further rather than held.
 */
export const MAX_DECODER_BACKLOG = 4 * 1024 * 1024;

/** After the first text, coded chunks wait to be decoded together until this many bytes, or the end. */
const BATCH_BYTES = 64 * 1024;

/**
 * Chunks that arrive while the decoder is busy and within this many milliseconds of each other are
 * decoded together, stamped with the last one's arrival: never early, and late by this much at most.
 */
export const GROUP_MS = 0.25;

/**
 * A detector that decodes a coded body and feeds what it decodes, with each chunk's arrival time,
 * to the format's own detector. `feed` only hands the chunk to the decoder; the format's detector
 * sees it a thread-pool round trip later, so the call's end waits for `close`.
 *
 * A write to the decoder costs a thread-pool round trip, so there are few: one at a time, with the
 * chunks that came meanwhile waiting (a burst that arrived together is one write), and after the
 * first text, when no more instants are read, everything in one batch at the end (or every 64 KiB).
 */
export class DecodingDetector implements StreamDetector {
  readonly #coding: ContentCoding;
  readonly #inner: StreamDetector;
  readonly #sink: DecodingSink;
  readonly #onFailure: (error: unknown) => void;
  #decoder: Transform | undefined;
  /** The instant each write to the decoder stands for, oldest first: one while decoding goes on. */
  readonly #arrivals: number[] = [];
  /** Chunks (copied) that arrived while a write was being decoded, before the first text. */
  #waiting: Array<{ readonly bytes: Buffer; readonly at: number }> = [];
  /** Chunks (copied) after the first text, waiting to be decoded together. */
  #batch: Buffer[] = [];
  /** Bytes in `#waiting` and `#batch`. */
  #heldBytes = 0;
  #stopped = false;
  #closing: (() => void) | undefined;

  /** `onFailure`: an exception of the format's detector or its observer, which runs outside `feed` here. */
  constructor(
    coding: ContentCoding,
    inner: StreamDetector,
    sink: DecodingSink,
    onFailure: (error: unknown) => void,
  ) {
    this.#coding = coding;
    this.#inner = inner;
    this.#sink = sink;
    this.#onFailure = onFailure;
  }

  feed(chunk: Uint8Array): void {
    if (this.#stopped || this.#closing !== undefined || chunk.byteLength === 0) return;
    const decoder = this.#decoder ?? this.#start(chunk);
    if (decoder.writableLength + this.#heldBytes > MAX_DECODER_BACKLOG) {
      this.#stop('backlog');
      return;
    }
    if (this.#sink.firstTextAt !== undefined) {
      this.#batchWaiting(); // they came first
      this.#hold(Buffer.from(chunk));
      if (this.#heldBytes >= BATCH_BYTES && this.#arrivals.length === 0) this.#writeBatch(decoder);
      return;
    }
    const at = performance.now();
    if (this.#arrivals.length === 0) {
      this.#write(decoder, chunk, at);
      return;
    }
    this.#waiting.push({ bytes: Buffer.from(chunk), at });
    this.#heldBytes += chunk.byteLength;
  }

  /** Synchronous ends are not possible here: `close` is the end. */
  end(): void {
    this.close(true, () => {});
  }

  /**
   * The body ended (`bodyEnded`) or the call failed: decode what has arrived, then call `done`.
   * Only an ended body ends the format's detector (an NDJSON last line without its newline counts).
   */
  close(bodyEnded: boolean, done: () => void): void {
    if (this.#closing !== undefined) return;
    let called = false;
    this.#closing = () => {
      if (called) return;
      called = true;
      if (bodyEnded && !this.#stopped) this.#guarded(() => this.#inner.end());
      const decoder = this.#decoder;
      if (decoder !== undefined) {
        decoder.off('data', this.#onData);
        decoder.off('error', this.#onError);
        // A decoder that read its body to the end serves the next call; one that failed does not.
        if (this.#stopped) decoder.destroy();
        else release(decoder);
      }
      this.#stopped = true;
      done();
    };
    const decoder = this.#decoder;
    if (decoder === undefined || this.#stopped) {
      this.#closing();
      return;
    }
    // Each write is flushed as it is decoded (as fetch's own decoder flushes), so once the last
    // write's output is read nothing is left: the decoder is not ended (that costs the thread pool
    // another round trip), it is let go.
    while (this.#waiting.length > 0) this.#writeWaiting(decoder);
    this.#writeBatch(decoder);
    if (this.#arrivals.length === 0) this.#closing();
  }

  #start(first: Uint8Array): Transform {
    const decoder = acquire(this.#coding, first);
    decoder.on('data', this.#onData);
    decoder.on('error', this.#onError);
    this.#decoder = decoder;
    return decoder;
  }

  #write(decoder: Transform, bytes: Uint8Array, at: number): void {
    this.#arrivals.push(at);
    decoder.write(bytes, this.#decoded);
  }

  /** The first text is in: what waited is read without its instants, ahead of the batch. */
  #batchWaiting(): void {
    if (this.#waiting.length === 0) return;
    this.#batch.unshift(...this.#waiting.map((w) => w.bytes));
    this.#waiting = [];
  }

  #hold(bytes: Buffer): void {
    this.#batch.push(bytes);
    this.#heldBytes += bytes.byteLength;
  }

  /** The waiting chunks that arrived together (within `GROUP_MS` of the first), as one write. */
  #writeWaiting(decoder: Transform): void {
    const first = this.#waiting[0];
    if (first === undefined) return;
    let n = 1;
    while (n < this.#waiting.length && (this.#waiting[n]?.at as number) - first.at <= GROUP_MS) n++;
    const group = this.#waiting.splice(0, n);
    const bytes = n === 1 ? first.bytes : Buffer.concat(group.map((w) => w.bytes));
    this.#heldBytes -= bytes.byteLength;
    this.#write(decoder, bytes, (group.at(-1) as { at: number }).at);
  }

  #writeBatch(decoder: Transform): void {
    if (this.#batch.length === 0) return;
    const bytes = this.#batch.length === 1 ? (this.#batch[0] as Buffer) : Buffer.concat(this.#batch);
    this.#batch = [];
    this.#heldBytes -= bytes.byteLength;
    this.#write(decoder, bytes, performance.now());
  }

  /** A write was decoded: its output has been read. The next goes, unless the call is closing. */
  readonly #decoded = (): void => {
    this.#arrivals.shift();
    const decoder = this.#decoder;
    if (this.#closing !== undefined) {
      if (this.#arrivals.length === 0) this.#closing();
      return;
    }
    if (this.#stopped || decoder === undefined || this.#arrivals.length > 0) return;
    if (this.#sink.firstTextAt !== undefined) {
      this.#batchWaiting();
      if (this.#heldBytes >= BATCH_BYTES) this.#writeBatch(decoder);
      return;
    }
    this.#writeWaiting(decoder);
  };

  readonly #onData = (decoded: Buffer): void => {
    if (this.#stopped) return;
    this.#sink.arrivedAt = this.#arrivals[0] ?? performance.now();
    this.#guarded(() => this.#inner.feed(decoded));
    this.#sink.arrivedAt = undefined;
  };

  readonly #onError = (error: unknown): void => {
    if (!this.#stopped) this.#stop(errorCode(error));
    this.#closing?.();
  };

  /** Reads no further: the body is not judged by its content. */
  #stop(reason: string): void {
    this.#stopped = true;
    this.#waiting = [];
    this.#batch = [];
    this.#heldBytes = 0;
    this.#sink.undecodable(reason);
    this.#decoder?.destroy();
  }

  #guarded(read: () => void): void {
    try {
      read();
    } catch (error) {
      this.#stopped = true;
      this.#onFailure(error);
    }
  }
}

/**
 * Decoders that read a body to its end, reset, for the next call: making one and letting it go
 * cost more than decoding a stream's few writes. At most `MAX_IDLE` of each kind wait.
 */
const idle = new Map<string, Transform[]>();
const MAX_IDLE = 16;
const KIND = Symbol('lanewatch.decoderKind');

function acquire(coding: ContentCoding, first: Uint8Array): Transform {
  const kind = coding === 'deflate' && ((first[0] as number) & 0x0f) !== 0x08 ? 'deflate-raw' : coding;
  const decoder = idle.get(kind)?.pop() ?? createDecoder(kind);
  (decoder as Transform & { [KIND]?: string })[KIND] = kind;
  return decoder;
}

function release(decoder: Transform): void {
  const kind = (decoder as Transform & { [KIND]?: string })[KIND];
  let pool = kind === undefined ? undefined : idle.get(kind);
  if (pool === undefined && kind !== undefined) {
    pool = [];
    idle.set(kind, pool);
  }
  if (pool === undefined || pool.length >= MAX_IDLE) {
    decoder.destroy();
    return;
  }
  try {
    (decoder as Transform & { reset(): void }).reset();
    pool.push(decoder);
  } catch {
    decoder.destroy();
  }
}

/** Every write decoded as far as it goes, and the end too (as fetch reads a body cut short). */
const ZLIB_FLUSHING = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };

/** The decoders and options fetch uses (undici's `lib/web/fetch`), so both read a body alike. */
function createDecoder(kind: ContentCoding | 'deflate-raw'): Transform {
  // A decoder hands its output on in pieces of its chunk size (16 KiB), however much one chunk makes.
  switch (kind) {
    case 'gzip':
      return zlib.createGunzip(ZLIB_FLUSHING);
    // `deflate` is a zlib stream by the standard and a raw one from some servers: fetch tells them
    // apart by the first byte, and so does `acquire`.
    case 'deflate':
      return zlib.createInflate(ZLIB_FLUSHING);
    case 'deflate-raw':
      return zlib.createInflateRaw(ZLIB_FLUSHING);
    case 'br':
      return zlib.createBrotliDecompress({
        flush: zlib.constants.BROTLI_OPERATION_FLUSH,
        finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
      });
    case 'zstd': {
      const z = zlib as unknown as {
        createZstdDecompress(options: object): Transform;
        constants: Record<string, number>;
      };
      return z.createZstdDecompress({
        flush: z.constants.ZSTD_e_continue,
        finishFlush: z.constants.ZSTD_e_end,
      });
    }
  }
}

/** A decoder's failure by its code only: zlib's messages are generic, but nothing here reads them. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'decode_error';
}
