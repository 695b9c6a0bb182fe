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
  /** The coded body could not be decoded: it is read no further, and not judged by its content. */
  undecodable(reason: string): void;
}

/**
 * The most coded bytes a stream may have waiting for its decoder. The decoder keeps pace with any
 * network (it is the application's own decoder's twin), so only a pathological body reaches this;
 * it is then read no further rather than held.
 */
export const MAX_DECODER_BACKLOG = 4 * 1024 * 1024;

/**
 * A detector that decodes a coded body and feeds what it decodes, with each chunk's arrival time,
 * to the format's own detector. `feed` only hands the chunk to the decoder; the format's detector
 * sees it a thread-pool round trip later, so the call's end waits for `close`.
 */
export class DecodingDetector implements StreamDetector {
  readonly #coding: ContentCoding;
  readonly #inner: StreamDetector;
  readonly #sink: DecodingSink;
  readonly #onFailure: (error: unknown) => void;
  #decoder: Transform | undefined;
  /** Arrival instants of the chunks written to the decoder and not yet decoded, oldest first. */
  readonly #arrivals: number[] = [];
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

  get coding(): ContentCoding {
    return this.#coding;
  }

  feed(chunk: Uint8Array): void {
    if (this.#stopped || this.#closing !== undefined || chunk.byteLength === 0) return;
    const decoder = this.#decoder ?? this.#start(chunk);
    if (decoder.writableLength > MAX_DECODER_BACKLOG) {
      this.#stopped = true;
      this.#sink.undecodable('backlog');
      decoder.destroy();
      return;
    }
    this.#arrivals.push(performance.now());
    decoder.write(chunk, this.#decoded);
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
      this.#stopped = true;
      done();
    };
    const decoder = this.#decoder;
    if (decoder === undefined || this.#stopped) {
      this.#closing();
      return;
    }
    decoder.once('end', this.#closing);
    decoder.once('close', this.#closing);
    decoder.end();
  }

  #start(first: Uint8Array): Transform {
    const decoder = createDecoder(this.#coding, first);
    decoder.on('data', this.#onData);
    decoder.on('error', this.#onError);
    this.#decoder = decoder;
    return decoder;
  }

  readonly #decoded = (): void => {
    this.#arrivals.shift();
  };

  readonly #onData = (decoded: Buffer): void => {
    if (this.#stopped) return;
    this.#sink.arrivedAt = this.#arrivals[0] ?? performance.now();
    this.#guarded(() => this.#inner.feed(decoded));
    this.#sink.arrivedAt = undefined;
  };

  readonly #onError = (error: unknown): void => {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#sink.undecodable(errorCode(error));
    }
    this.#decoder?.destroy();
    this.#closing?.();
  };

  #guarded(read: () => void): void {
    try {
      read();
    } catch (error) {
      this.#stopped = true;
      this.#onFailure(error);
    }
  }
}

/** The decoders and options fetch uses (undici's `lib/web/fetch`), so both read a body alike. */
function createDecoder(coding: ContentCoding, first: Uint8Array): Transform {
  // A decoder hands its output on in pieces of its chunk size (16 KiB), however much one chunk makes.
  switch (coding) {
    case 'gzip':
      return zlib.createGunzip({
        flush: zlib.constants.Z_SYNC_FLUSH,
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
      });
    case 'deflate': {
      // `deflate` is a zlib stream by the standard and a raw one from some servers: fetch tells them
      // apart by the first byte, and so does this.
      const options = {
        flush: zlib.constants.Z_SYNC_FLUSH,
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
      };
      return ((first[0] as number) & 0x0f) === 0x08
        ? zlib.createInflate(options)
        : zlib.createInflateRaw(options);
    }
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
