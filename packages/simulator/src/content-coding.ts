import { once } from 'node:events';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { WirePiece } from './wire-format.ts';

/** The codings the simulator compresses a stream with, in the order it prefers them. */
export const STREAM_CODINGS = ['br', 'gzip', 'deflate'] as const;
export type StreamCoding = (typeof STREAM_CODINGS)[number];
/**
 * Every coding `codePieces` makes: the negotiated ones, `deflate-raw` (`deflate` without its zlib
 * wrapper, as some servers send it) and `zstd` (where Node's zlib has it), for clients' tests.
 */
export type Coding = StreamCoding | 'deflate-raw' | 'zstd';

/**
 * The coding a compressing gateway picks for a request's `Accept-Encoding`: the first of its own
 * preferences (`br`, `gzip`, `deflate`) that the request accepts (named, or `*`, with q > 0).
 * `undefined` when it accepts none, or sent no `Accept-Encoding`.
 */
export function negotiateCoding(
  acceptEncoding: string | readonly string[] | undefined,
): StreamCoding | undefined {
  if (acceptEncoding === undefined) return undefined;
  const accepted = new Map<string, number>();
  for (const entry of [acceptEncoding].flat().join(',').split(',')) {
    const [name = '', ...params] = entry.split(';').map((s) => s.trim().toLowerCase());
    if (name === '') continue;
    const q = params.find((p) => p.startsWith('q='));
    accepted.set(name === 'x-gzip' ? 'gzip' : name, q === undefined ? 1 : Number(q.slice(2)));
  }
  const wildcard = accepted.get('*');
  return STREAM_CODINGS.find((coding) => {
    const q = accepted.get(coding) ?? wildcard;
    return q !== undefined && q > 0;
  });
}

/** A stream's pieces compressed as one body: each piece flushed, and what ends the coding. */
export interface CodedPieces {
  /** Each piece's compressed bytes, decodable on arrival; empty where the piece was. */
  readonly pieces: readonly Uint8Array[];
  /** What ends the coding (gzip's trailer, …): sent with the body's end when it ends in full. */
  readonly tail: Uint8Array;
}

/**
 * Compresses a stream's pieces as a gateway that compresses event streams does: one compressor for
 * the body, flushed after each piece so that each can be decoded the moment it arrives.
 */
export async function codePieces(pieces: readonly WirePiece[], coding: Coding): Promise<CodedPieces> {
  const [compressor, flush] = compressorOf(coding);
  const out: Buffer[] = [];
  compressor.on('data', (chunk: Buffer) => out.push(chunk));
  const coded: Uint8Array[] = [];
  for (const piece of pieces) {
    if ((typeof piece === 'string' ? piece.length : piece.byteLength) === 0) {
      coded.push(new Uint8Array(0));
      continue;
    }
    compressor.write(piece);
    await new Promise<void>((resolve) => compressor.flush(flush, resolve));
    coded.push(Buffer.concat(out.splice(0)));
  }
  const ended = once(compressor, 'end');
  compressor.end();
  await ended;
  return { pieces: coded, tail: Buffer.concat(out.splice(0)) };
}

type Flushing = Transform & { flush(kind: number, callback: () => void): void };

/** A whole reply's body compressed in one go, as a gateway compresses a non-streaming answer. */
export function codeWhole(body: string, coding: StreamCoding): Buffer {
  switch (coding) {
    case 'br':
      return zlib.brotliCompressSync(body);
    case 'gzip':
      return zlib.gzipSync(body);
    case 'deflate':
      return zlib.deflateSync(body);
  }
}

function compressorOf(coding: Coding): [Flushing, number] {
  switch (coding) {
    case 'br':
      return [zlib.createBrotliCompress() as Flushing, zlib.constants.BROTLI_OPERATION_FLUSH];
    case 'gzip':
      return [zlib.createGzip() as Flushing, zlib.constants.Z_SYNC_FLUSH];
    case 'deflate':
      return [zlib.createDeflate() as Flushing, zlib.constants.Z_SYNC_FLUSH];
    case 'deflate-raw':
      return [zlib.createDeflateRaw() as Flushing, zlib.constants.Z_SYNC_FLUSH];
    case 'zstd': {
      const z = zlib as unknown as { createZstdCompress?: () => Flushing; constants: Record<string, number> };
      if (z.createZstdCompress === undefined)
        throw new Error(`zstd needs Node ≥ 22.15 (this is ${process.version})`);
      return [z.createZstdCompress(), z.constants.ZSTD_e_flush as number];
    }
  }
}
