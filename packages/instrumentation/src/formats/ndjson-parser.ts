import type { Buffer } from 'node:buffer';
import { createLineSplitter } from './line-splitter.ts';

/**
 * Newline-delimited JSON (Ollama's streaming body) as records: one per non-blank line. Lines end with
 * LF, CRLF or CR, a leading UTF-8 BOM is dropped, and a line over the cap is skipped up to its end
 * and reported, exactly as in the SSE parser. The record is handed on as bytes: detectors decide
 * from a few byte patterns whether it is worth decoding.
 */

export interface NdjsonIssue {
  /** A line over the cap was skipped up to its end; it was a record that could not be read. */
  readonly type: 'line-too-long';
  readonly bytes: number;
}

export interface NdjsonCallbacks {
  /** A non-blank line, as UTF-8 bytes: `buffer[start, end)`. Only valid during the call: copy to keep. */
  onRecord(buffer: Buffer, start: number, end: number): void;
  onIssue?(issue: NdjsonIssue): void;
}

export interface NdjsonParser {
  feed(chunk: Uint8Array): void;
  /** The body ended: a last line without its newline is still a record. Then starts over. */
  end(): void;
  reset(): void;
}

const SPACE = 0x20;
const TAB = 0x09;

function isBlank(line: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (line[i] !== SPACE && line[i] !== TAB) return false;
  return true;
}

export function createNdjsonParser(
  callbacks: NdjsonCallbacks,
  options?: { maxLineBytes?: number },
): NdjsonParser {
  const splitter = createLineSplitter(
    {
      line(buffer, start, end) {
        if (!isBlank(buffer, start, end)) callbacks.onRecord(buffer, start, end);
      },
      oversizedLine(_head, bytes) {
        callbacks.onIssue?.({ type: 'line-too-long', bytes });
      },
    },
    options,
  );
  return { feed: splitter.feed, end: splitter.flush, reset: splitter.reset };
}
