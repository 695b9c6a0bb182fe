import { Buffer } from 'node:buffer';
import { crc32 } from 'node:zlib';
import { asBuffer, validateMaxLineBytes } from './line-splitter.ts';

/**
 * A reader of AWS event streams (`application/vnd.amazon.eventstream`, Amazon Bedrock's streaming
 * responses) over raw bytes. Each message is
 *
 *     total length (u32) · headers length (u32) · prelude CRC32 (u32) · headers · payload · message CRC32 (u32)
 *
 * all big-endian; a header is a name (u8 length, bytes), a value type (u8) and the value. The reader
 * hands on the four string headers that say what a message is and its payload as a range of a
 * buffer — the chunk itself when a message arrived whole, which is the common case, so nothing is
 * copied. Between chunks it keeps only the incomplete message.
 *
 * The prelude CRC is checked, since the lengths decide everything after them: a body that is not an
 * event stream (or has lost its framing) is seen at once, and nothing more of it is read. The message
 * CRC is not: the application's client checks it, and the reader decides nothing that depends on
 * the payload being intact beyond reading it.
 */

export interface EventStreamMessage {
  /** `:message-type`: `event`, `exception` or `error`; `''` when absent. */
  readonly messageType: string;
  /** `:event-type` (`chunk`, `contentBlockDelta`, …); `''` when absent. */
  readonly eventType: string;
  /** `:exception-type` of an exception, else `:error-code` of an error; `''` when absent. */
  readonly exceptionType: string;
  /** The payload: `buffer[start, end)`. Only valid during `onMessage`: copy to keep. */
  readonly buffer: Buffer;
  readonly start: number;
  readonly end: number;
}

export type EventStreamIssueType =
  /** A message over the size cap was skipped unread (its length was valid). */
  | 'message-too-long'
  /** A prelude did not check out: the body is not (or no longer) an event stream; nothing more is read. */
  | 'not-an-event-stream';

export interface EventStreamCallbacks {
  onMessage(message: EventStreamMessage): void;
  onIssue?(issue: { type: EventStreamIssueType; bytes: number }): void;
}

export interface EventStreamReader {
  feed(chunk: Uint8Array): void;
  /** Forgets everything, as for a new stream (an incomplete last message is not handed on). */
  reset(): void;
}

const PRELUDE = 12;
/** Prelude plus message CRC: the smallest message there is (no headers, no payload). */
const MIN_MESSAGE = 16;

const MESSAGE_TYPE = Buffer.from(':message-type');
const EVENT_TYPE = Buffer.from(':event-type');
const EXCEPTION_TYPE = Buffer.from(':exception-type');
const ERROR_CODE = Buffer.from(':error-code');
const EMPTY = Buffer.alloc(0);
const STRING = 7;
/** Value bytes of the fixed-size header types: bool true, bool false, byte, short, int, long, -, -, timestamp, uuid. */
const FIXED_SIZE: readonly number[] = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];
const BYTES = 6;
/** Header values kept decoded per stream: a stream uses a handful, on every message. */
const MAX_VALUES = 32;
const MAX_VALUE_BYTES = 64;

/**
 * The total length of the message whose prelude starts at `at`, or -1 when the prelude is not one:
 * a length below the minimum, headers longer than the message, or a CRC that does not match.
 */
function messageLength(buffer: Buffer, at: number): number {
  const total = buffer.readUInt32BE(at);
  const headers = buffer.readUInt32BE(at + 4);
  if (total < MIN_MESSAGE || headers > total - MIN_MESSAGE) return -1;
  if (crc32(buffer.subarray(at, at + 8)) !== buffer.readUInt32BE(at + 8)) return -1;
  return total;
}

function nameIs(buffer: Buffer, at: number, length: number, name: Buffer): boolean {
  if (length !== name.length) return false;
  for (let i = 1; i < length; i += 1) if (buffer[at + i] !== name[i]) return false;
  return true;
}

export function createEventStreamReader(
  callbacks: EventStreamCallbacks,
  options?: { readonly maxMessageBytes?: number },
): EventStreamReader {
  const maxBytes = validateMaxLineBytes(options?.maxMessageBytes);
  let pieces: Buffer[] = []; // copies of the incomplete message
  let pendingBytes = 0;
  let total = 0; // the held message's length, once its prelude is complete
  let skip = 0; // bytes still to pass over of a message over the cap
  let broken = false;
  const message: { -readonly [K in keyof EventStreamMessage]: EventStreamMessage[K] } = {
    messageType: '',
    eventType: '',
    exceptionType: '',
    buffer: EMPTY,
    start: 0,
    end: 0,
  };

  // Header values as strings, decoded once each: `chunk`, `event`, `contentBlockDelta`, …
  const values: string[] = [];
  function stringValue(buffer: Buffer, start: number, end: number): string {
    const length = end - start;
    for (const value of values) {
      if (value.length !== length) continue;
      let same = true;
      for (let i = 0; i < length; i += 1) {
        if (buffer[start + i] !== value.charCodeAt(i)) {
          same = false;
          break;
        }
      }
      if (same) return value;
    }
    const value = buffer.toString('utf8', start, end);
    let ascii = length <= MAX_VALUE_BYTES;
    for (let i = start; ascii && i < end; i += 1) if ((buffer[i] as number) >= 0x80) ascii = false;
    if (ascii && values.length < MAX_VALUES) values.push(value);
    return value;
  }

  /** Reads the headers of the whole message at `buffer[at, at + length)` and hands it on. */
  function read(buffer: Buffer, at: number, length: number): void {
    const headersEnd = at + PRELUDE + buffer.readUInt32BE(at + 4);
    message.messageType = '';
    message.eventType = '';
    message.exceptionType = '';
    let i = at + PRELUDE;
    while (i < headersEnd) {
      const nameLength = buffer[i] as number;
      const typeAt = i + 1 + nameLength;
      if (typeAt >= headersEnd) break; // malformed: the rest of the headers cannot be read
      const type = buffer[typeAt] as number;
      let valueStart = typeAt + 1;
      let valueEnd: number;
      if (type === STRING || type === BYTES) {
        if (valueStart + 2 > headersEnd) break;
        valueEnd = valueStart + 2 + buffer.readUInt16BE(valueStart);
        valueStart += 2;
      } else {
        const size = FIXED_SIZE[type] ?? -1;
        if (size < 0) break;
        valueEnd = valueStart + size;
      }
      if (valueEnd > headersEnd) break;
      if (type === STRING && buffer[i + 1] === 0x3a /* : */) {
        const name = i + 1;
        if (nameIs(buffer, name, nameLength, MESSAGE_TYPE))
          message.messageType = stringValue(buffer, valueStart, valueEnd);
        else if (nameIs(buffer, name, nameLength, EVENT_TYPE))
          message.eventType = stringValue(buffer, valueStart, valueEnd);
        else if (
          nameIs(buffer, name, nameLength, EXCEPTION_TYPE) ||
          nameIs(buffer, name, nameLength, ERROR_CODE)
        )
          message.exceptionType = stringValue(buffer, valueStart, valueEnd);
      }
      i = valueEnd;
    }
    message.buffer = buffer;
    message.start = headersEnd;
    message.end = at + length - 4;
    callbacks.onMessage(message);
    message.buffer = EMPTY; // it may be the application's chunk: not kept past the call
  }

  function hold(chunk: Buffer, start: number, end: number): void {
    pieces.push(Buffer.from(chunk.subarray(start, end)));
    pendingBytes += end - start;
  }

  function fail(bytes: number): void {
    broken = true;
    pieces = [];
    pendingBytes = 0;
    total = 0;
    callbacks.onIssue?.({ type: 'not-an-event-stream', bytes });
  }

  function tooLong(length: number): void {
    callbacks.onIssue?.({ type: 'message-too-long', bytes: length });
  }

  function feed(input: Uint8Array): void {
    if (broken) return;
    const chunk = asBuffer(input);
    const length = chunk.length;
    let pos = 0;
    while (pos < length) {
      if (skip > 0) {
        const n = Math.min(skip, length - pos);
        skip -= n;
        pos += n;
        continue;
      }
      if (pendingBytes === 0) {
        // Whole messages are read in place, in the application's chunk.
        if (length - pos >= PRELUDE) {
          const size = messageLength(chunk, pos);
          if (size === -1) {
            fail(length - pos);
            return;
          }
          if (size > maxBytes) {
            tooLong(size);
            skip = size;
            continue;
          }
          if (length - pos >= size) {
            read(chunk, pos, size);
            pos += size;
            continue;
          }
          total = size;
        }
        hold(chunk, pos, length);
        return;
      }
      // Completing a held message: first its prelude, then the rest of it.
      const want = (total === 0 ? PRELUDE : total) - pendingBytes;
      const n = Math.min(want, length - pos);
      hold(chunk, pos, pos + n);
      pos += n;
      if (n < want) return;
      const held = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces, pendingBytes);
      pieces = [];
      pendingBytes = 0;
      if (total === 0) {
        const size = messageLength(held, 0);
        if (size === -1) {
          fail(PRELUDE);
          return;
        }
        if (size > maxBytes) {
          tooLong(size);
          skip = size - PRELUDE;
          continue;
        }
        total = size;
        pieces = [held];
        pendingBytes = PRELUDE;
        continue;
      }
      total = 0;
      read(held, 0, held.length);
    }
  }

  function reset(): void {
    pieces = [];
    pendingBytes = 0;
    total = 0;
    skip = 0;
    broken = false;
  }

  return { feed, reset };
}
