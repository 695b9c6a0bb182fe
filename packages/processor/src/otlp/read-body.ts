import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

// Reads an OTLP/HTTP request body within a byte budget that holds for the bytes on the wire and for
// the bytes after decompression: a small gzip bomb fails at the budget, not at the memory limit.

export class BodyError extends Error {
  override readonly name = 'BodyError';
  readonly status: 400 | 413 | 415;
  constructor(status: 400 | 413 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

type Decompress = (body: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>;

const gunzip = promisify(zlib.gunzip) as Decompress;
const inflate = promisify(zlib.inflate) as Decompress;
const zstd: Decompress | undefined =
  typeof zlib.zstdDecompress === 'function' ? (promisify(zlib.zstdDecompress) as Decompress) : undefined;

/** Content-Encoding values this receiver reads (the collector's otlphttp exporter sends gzip by default). */
export const SUPPORTED_ENCODINGS = ['gzip', 'deflate', ...(zstd ? ['zstd'] : []), 'identity'] as const;

function decompressorFor(encoding: string): Decompress | null | undefined {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return gunzip;
    case 'deflate':
      return inflate;
    case 'zstd':
      return zstd;
    default:
      return undefined;
  }
}

function tooLarge(maxBytes: number, what: string): BodyError {
  return new BodyError(413, `${what} exceeds the limit of ${maxBytes} bytes`);
}

function readRaw(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        // Stop buffering; the response closes the connection (see metrics-handler.ts).
        req.pause();
        reject(tooLarge(maxBytes, 'request body'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new BodyError(400, `request body could not be read: ${error.message}`));
    };
    // A client that goes away mid-body closes the request without 'end' (and not always with 'error').
    const onClose = () => {
      cleanup();
      reject(new BodyError(400, 'request body ended before it was complete'));
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The request body, decompressed, at most `maxBytes` before and after decompression. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decompress = decompressorFor(encoding);
  if (decompress === undefined) {
    throw new BodyError(
      415,
      `Content-Encoding ${JSON.stringify(encoding)} is not supported; use one of ${SUPPORTED_ENCODINGS.join(', ')}`,
    );
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes, 'request body');
  const raw = await readRaw(req, maxBytes);
  if (decompress === null) return raw;
  try {
    return await decompress(raw, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw tooLarge(maxBytes, 'decompressed request body');
    }
    throw new BodyError(400, `request body is not valid ${encoding}: ${(error as Error).message}`);
  }
}
