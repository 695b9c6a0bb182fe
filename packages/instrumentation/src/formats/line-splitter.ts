import { Buffer } from 'node:buffer';

/**
 * Splits a byte stream into lines ended by CRLF, LF or CR, the line endings of both the WHATWG
 * event-stream grammar (`end-of-line = ( cr lf / cr / lf )`) and NDJSON. It works on bytes, never on
 * decoded text: CR and LF never occur inside a multi-byte UTF-8 sequence, so a code point split
 * across chunks is whole again by the time its line is handed on, and only complete lines are
 * ever decoded.
 *
 * Between two `feed` calls it keeps only the incomplete last line, as a copy (the chunk belongs to
 * the application). A line longer than `maxLineBytes` is not buffered: the splitter keeps its first
 * few bytes, counts the rest until the line ends, and reports it to `oversizedLine`.
 */

export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;

/** How many leading bytes of an oversized line are kept, enough to name an SSE field (`data:`). */
export const OVERSIZED_HEAD_BYTES = 8;

const LF = 0x0a;
const CR = 0x0d;
// The UTF-8 byte order mark. The event-stream grammar allows one at the start (`stream = [ bom ]
// *event`) and UTF-8 decode strips it; NDJSON producers that write one get the same treatment.
const BOM = [0xef, 0xbb, 0xbf] as const;
const NOTHING = Buffer.alloc(0);

export interface LineSink {
  /**
   * A complete line without its ending: `buffer[start, end)`. Handed on as a range, not a view, since
   * a view costs an allocation per line. Only valid during the call: copy to keep — unless `owned`,
   * when the splitter put the line together from pieces in a buffer of its own, no one else's.
   */
  line(buffer: Buffer, start: number, end: number, owned: boolean): void;
  /** A line over the cap ended. `head` is its first bytes (at most `OVERSIZED_HEAD_BYTES`). */
  oversizedLine(head: Buffer, bytes: number): void;
}

export interface LineSplitter {
  feed(chunk: Uint8Array): void;
  /** The stream ended: hands on an unterminated last line, then starts over. */
  flush(): void;
  /** Forgets everything, as for a new stream. */
  reset(): void;
}

export function validateMaxLineBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`maxLineBytes must be a positive whole number of bytes, got ${String(value)}`);
  }
  return value;
}

export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

export function createLineSplitter(sink: LineSink, options?: { maxLineBytes?: number }): LineSplitter {
  const maxLineBytes = validateMaxLineBytes(options?.maxLineBytes);

  let atStreamStart = true; // the BOM may still come, possibly split across chunks
  let bomBytesSeen = 0;
  let afterCR = false; // the last chunk ended with a CR: a leading LF completes that CRLF
  let pieces: Buffer[] = []; // copies of the incomplete line
  let pendingBytes = 0;
  let discarding = false; // inside a line over the cap
  let discardHead: Buffer = NOTHING;
  let discardBytes = 0;

  function reset(): void {
    atStreamStart = true;
    bomBytesSeen = 0;
    afterCR = false;
    if (pieces.length > 0) pieces = [];
    pendingBytes = 0;
    discarding = false;
    discardHead = NOTHING;
    discardBytes = 0;
  }

  function headOf(parts: readonly Buffer[]): Buffer {
    const head = Buffer.alloc(OVERSIZED_HEAD_BYTES);
    let filled = 0;
    for (const part of parts) {
      if (filled === OVERSIZED_HEAD_BYTES) break;
      filled += part.copy(head, filled, 0, Math.min(part.length, OVERSIZED_HEAD_BYTES - filled));
    }
    return head.subarray(0, filled);
  }

  function endLine(chunk: Buffer, start: number, end: number): void {
    if (discarding) {
      const head = discardHead;
      const bytes = discardBytes + (end - start);
      discarding = false;
      discardHead = NOTHING;
      discardBytes = 0;
      sink.oversizedLine(head, bytes);
      return;
    }
    if (pieces.length > 0) {
      const bytes = pendingBytes + (end - start);
      const tail = chunk.subarray(start, end);
      const parts = pieces;
      pieces = [];
      pendingBytes = 0;
      parts.push(tail);
      if (bytes > maxLineBytes) sink.oversizedLine(headOf(parts), bytes);
      else sink.line(Buffer.concat(parts, bytes), 0, bytes, true);
      return;
    }
    if (end - start > maxLineBytes) {
      sink.oversizedLine(Buffer.from(chunk.subarray(start, start + OVERSIZED_HEAD_BYTES)), end - start);
      return;
    }
    sink.line(chunk, start, end, false);
  }

  function keepIncomplete(chunk: Buffer, start: number): void {
    const bytes = chunk.length - start;
    if (discarding) {
      discardBytes += bytes;
      return;
    }
    if (pendingBytes + bytes > maxLineBytes) {
      // Over the cap before its end: keep the head, drop the rest as it comes, never grow.
      pieces.push(chunk.subarray(start));
      discardHead = headOf(pieces);
      discardBytes = pendingBytes + bytes;
      discarding = true;
      pieces = [];
      pendingBytes = 0;
      return;
    }
    pieces.push(Buffer.from(chunk.subarray(start)));
    pendingBytes += bytes;
  }

  function split(chunk: Buffer): void {
    const length = chunk.length;
    let pos = 0;
    if (afterCR) {
      afterCR = false;
      if (chunk[0] === LF) pos = 1; // the LF of a CRLF whose CR ended the previous chunk
    }
    // Next LF / CR at or after `pos`; -1 when there is none left in this chunk, so each byte of the
    // chunk is searched at most once per ending kind.
    let nextLF = -2;
    let nextCR = -2;
    while (pos < length) {
      let end: number;
      const first = chunk[pos];
      if (first === LF || first === CR) {
        end = pos; // an empty line — in SSE, the end of an event — needs no search
      } else {
        if (nextLF !== -1 && nextLF < pos) nextLF = chunk.indexOf(LF, pos);
        if (nextCR !== -1 && nextCR < pos) nextCR = chunk.indexOf(CR, pos);
        if (nextLF === -1) {
          if (nextCR === -1) break;
          end = nextCR;
        } else {
          end = nextCR === -1 || nextLF < nextCR ? nextLF : nextCR;
        }
      }
      endLine(chunk, pos, end);
      pos = end + 1;
      if (chunk[end] === CR) {
        // A CR ends the line at once (its event may be due now); an LF right after it is the same
        // line ending, whether it is in this chunk or starts the next one.
        if (pos < length) {
          if (chunk[pos] === LF) pos += 1;
        } else {
          afterCR = true;
        }
      }
    }
    if (pos < length) keepIncomplete(chunk, pos);
  }

  function feed(input: Uint8Array): void {
    let chunk = asBuffer(input);
    if (chunk.length === 0) return;
    if (atStreamStart) {
      let i = 0;
      while (i < chunk.length && bomBytesSeen + i < BOM.length && chunk[i] === BOM[bomBytesSeen + i]) i += 1;
      if (bomBytesSeen + i === BOM.length) {
        atStreamStart = false;
        chunk = chunk.subarray(i);
      } else if (i === chunk.length) {
        bomBytesSeen += i; // every byte so far may still be the start of a BOM
        return;
      } else {
        // Not a BOM after all: the bytes held back are ordinary content.
        atStreamStart = false;
        if (bomBytesSeen > 0) chunk = Buffer.concat([Buffer.from(BOM.slice(0, bomBytesSeen)), chunk]);
      }
      bomBytesSeen = 0;
    }
    split(chunk);
  }

  function flush(): void {
    if (atStreamStart && bomBytesSeen > 0) {
      atStreamStart = false;
      split(Buffer.from(BOM.slice(0, bomBytesSeen)));
    }
    if (discarding) {
      const head = discardHead;
      const bytes = discardBytes;
      reset();
      sink.oversizedLine(head, bytes);
      return;
    }
    if (pieces.length > 0) {
      const line = Buffer.concat(pieces, pendingBytes);
      reset();
      sink.line(line, 0, line.length, true);
      return;
    }
    reset();
  }

  return { feed, flush, reset };
}
