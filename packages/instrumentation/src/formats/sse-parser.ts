import { Buffer } from 'node:buffer';
import { createLineSplitter, validateMaxLineBytes } from './line-splitter.ts';

/**
 * A server-sent events parser over raw bytes, following the WHATWG HTML standard, "9.2.6
 * Interpreting an event stream". Quotes in comments name the rule that decides each step.
 *
 * Unlike a browser's EventSource it hands on `data` as UTF-8 bytes — a range of a buffer — not as a
 * string: the format detectors look at a few bytes first and decode (and JSON-parse) only the events
 * that can matter to them. In the common case (one `data` line, one chunk) nothing is copied.
 */

export interface ServerSentEvent {
  /** The `event` field; `message` when there was none or it was empty ("initialize event type"). */
  readonly type: string;
  /**
   * The `data` fields joined with LF, as UTF-8 bytes: `buffer[start, end)`. Only valid during
   * `onEvent` (it may be the application's chunk, and the event object is reused): copy to keep.
   */
  readonly buffer: Buffer;
  readonly start: number;
  readonly end: number;
  /** The last event ID at dispatch ("set the last event ID string"), `''` before any `id` field. */
  readonly id: string;
  /** Data over the size cap was left out: the data is not the event's whole data and must not be read. */
  readonly incomplete: boolean;
}

export type SseIssueType =
  /** A line over the cap was skipped up to its end. */
  | 'line-too-long'
  /** An event's data lines together went over the cap; its data was dropped. */
  | 'event-too-long';

export interface SseIssue {
  readonly type: SseIssueType;
  readonly bytes: number;
}

export interface SseCallbacks {
  onEvent(event: ServerSentEvent): void;
  /** A `retry` field with a valid value, in milliseconds. */
  onRetry?(milliseconds: number): void;
  onIssue?(issue: SseIssue): void;
}

export interface SseParserOptions {
  /** Longest line, and longest data of one event, in bytes. Default 8 MiB. */
  readonly maxLineBytes?: number;
}

export interface SseParser {
  feed(chunk: Uint8Array): void;
  /**
   * Forgets the partial line and the pending event, as at the end of the stream ("If the file ends
   * in the middle of an event, before the final empty line, the incomplete event is not dispatched").
   */
  reset(): void;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const COLON = 0x3a;
const SPACE = 0x20;
const NUL = 0x00;
const LF = 0x0a;
/** Event names kept per stream, and the longest kept (see `eventName`). */
const MAX_NAMES = 16;
const MAX_NAME_BYTES = 64;

function isAsciiOf(line: Buffer, start: number, name: string): boolean {
  for (let i = 0; i < name.length; i += 1) if (line[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

function isAscii(line: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if ((line[i] as number) >= 0x80) return false;
  return true;
}

const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');
const ID = Buffer.from('id');
const RETRY = Buffer.from('retry');
const EMPTY = Buffer.alloc(0);

function fieldIs(line: Buffer, start: number, nameEnd: number, name: Buffer): boolean {
  if (nameEnd - start !== name.length) return false;
  for (let i = 0; i < name.length; i += 1) if (line[start + i] !== name[i]) return false;
  return true;
}

/** The first `byte` in `line[start, end)`, else `end`. A native search would run on past the line. */
function indexWithin(line: Buffer, byte: number, start: number, end: number): number {
  for (let i = start; i < end; i += 1) if (line[i] === byte) return i;
  return end;
}

function onlyAsciiDigits(line: Buffer, start: number, end: number): boolean {
  if (start === end) return false;
  for (let i = start; i < end; i += 1) {
    const byte = line[i] as number;
    if (byte < 0x30 || byte > 0x39) return false;
  }
  return true;
}

export function createSseParser(callbacks: SseCallbacks, options?: SseParserOptions): SseParser {
  const maxDataBytes = validateMaxLineBytes(options?.maxLineBytes);

  // The buffers of the algorithm. The data buffer is its first `data` value as a range
  // (`dataSource[dataStart, dataEnd)`), plus copies of any further values in `moreData`.
  let eventType = '';
  let hasData = false; // "If the data buffer is an empty string": no data field since the last dispatch
  let dataSource: Buffer = EMPTY;
  let dataStart = 0;
  let dataEnd = 0;
  let dataOwned = true; // false while the first value is a range of the chunk being fed
  let moreData: Buffer[] | undefined;
  let dataBytes = 0; // all values plus the LFs that will join them
  let incomplete = false;
  let lastEventId = '';
  const event: Mutable<ServerSentEvent> = {
    type: 'message',
    buffer: EMPTY,
    start: 0,
    end: 0,
    id: '',
    incomplete: false,
  };

  // The event names this stream used: a stream has a handful, each on nearly every event, so each is
  // decoded once and then matched byte by byte. ASCII names only (a byte is a character), a few.
  const names: string[] = [];
  function eventName(line: Buffer, start: number, end: number): string {
    const length = end - start;
    for (const name of names) if (name.length === length && isAsciiOf(line, start, name)) return name;
    const name = line.toString('utf8', start, end);
    if (names.length < MAX_NAMES && length <= MAX_NAME_BYTES && isAscii(line, start, end)) names.push(name);
    return name;
  }

  function clearEvent(): void {
    eventType = '';
    hasData = false;
    dataSource = EMPTY;
    dataStart = 0;
    dataEnd = 0;
    dataOwned = true;
    moreData = undefined;
    dataBytes = 0;
    incomplete = false;
  }

  function dispatch(): void {
    // "If the data buffer is an empty string, set the data buffer and the event type buffer to the
    // empty string and return." Here that is: no data field at all. `data:` with an empty value
    // does dispatch, with empty data, since it appended an LF to the data buffer.
    if (!hasData) {
      eventType = '';
      return;
    }
    // "If the data buffer's last character is a U+000A LINE FEED (LF) character, then remove the
    // last character": the values are joined with LF between them, never after the last one.
    let buffer = dataSource;
    let start = dataStart;
    let end = dataEnd;
    if (incomplete) {
      buffer = EMPTY;
      start = 0;
      end = 0;
    } else if (moreData !== undefined) {
      buffer = Buffer.allocUnsafe(dataBytes);
      let at = dataSource.copy(buffer, 0, dataStart, dataEnd);
      for (const value of moreData) {
        buffer[at] = LF;
        at += 1 + value.copy(buffer, at + 1);
      }
      start = 0;
      end = dataBytes;
    }
    // One event object per parser, filled in for each dispatch: it is only valid during `onEvent`
    // anyway, and a stream dispatches thousands.
    event.type = eventType === '' ? 'message' : eventType;
    event.buffer = buffer;
    event.start = start;
    event.end = end;
    event.id = lastEventId;
    event.incomplete = incomplete;
    clearEvent();
    callbacks.onEvent(event);
    event.buffer = EMPTY; // it may be the application's chunk: not kept past the call
  }

  function appendData(line: Buffer, start: number, end: number, owned: boolean): void {
    const first = !hasData;
    hasData = true;
    if (incomplete) return;
    const bytes = dataBytes + (first ? 0 : 1) + (end - start);
    if (bytes > maxDataBytes) {
      incomplete = true;
      dataSource = EMPTY;
      moreData = undefined;
      dataOwned = true;
      callbacks.onIssue?.({ type: 'event-too-long', bytes });
      return;
    }
    dataBytes = bytes;
    if (first) {
      dataSource = line;
      dataStart = start;
      dataEnd = end;
      dataOwned = owned;
    } else {
      moreData ??= [];
      moreData.push(Buffer.from(line.subarray(start, end)));
    }
  }

  function line(line: Buffer, start: number, end: number, owned: boolean): void {
    // "If the line is empty (a blank line): Dispatch the event."
    if (start === end) {
      dispatch();
      return;
    }
    // "If the line starts with a U+003A COLON character (:): Ignore the line." (a comment)
    if (line[start] === COLON) return;
    // `data:` and `event:` are nearly every line of an LLM stream: recognized byte by byte, without
    // a search for the colon. Same rules as below.
    if (line[start + 4] === COLON && fieldIs(line, start, start + 4, DATA)) {
      appendData(line, line[start + 5] === SPACE ? start + 6 : start + 5, end, owned);
      return;
    }
    // "If the line contains a U+003A COLON character: collect the characters on the line before the
    // first colon, and let field be that string; collect the characters on the line after the first
    // colon, and let value be that string. If value starts with a U+0020 SPACE character, remove it
    // from value." Otherwise: "using the whole line as the field name, and the empty string as the
    // field value."
    const colon = indexWithin(line, COLON, start, end);
    let valueStart = colon === end ? end : colon + 1;
    if (valueStart < end && line[valueStart] === SPACE) valueStart += 1;

    // "If the field name is 'data': Append the field value to the data buffer, then append a single
    // U+000A LINE FEED (LF) character to the data buffer."
    if (fieldIs(line, start, colon, DATA)) appendData(line, valueStart, end, owned);
    // "If the field name is 'event': Set the event type buffer to field value."
    else if (fieldIs(line, start, colon, EVENT)) eventType = eventName(line, valueStart, end);
    // "If the field name is 'id': If the field value does not contain U+0000 NULL, then set the last
    // event ID buffer to the field value. Otherwise, ignore the field."
    else if (fieldIs(line, start, colon, ID)) {
      if (indexWithin(line, NUL, valueStart, end) === end)
        lastEventId = line.toString('utf8', valueStart, end);
    }
    // "If the field name is 'retry': If the field value consists of only ASCII digits, then interpret
    // the field value as an integer in base ten [and set the reconnection time]. Otherwise, ignore."
    else if (fieldIs(line, start, colon, RETRY)) {
      if (onlyAsciiDigits(line, valueStart, end))
        callbacks.onRetry?.(Number(line.toString('latin1', valueStart, end)));
    }
    // "Otherwise: The field is ignored."
  }

  function oversizedLine(head: Buffer, bytes: number): void {
    callbacks.onIssue?.({ type: 'line-too-long', bytes });
    // A skipped data line still made the event non-empty; its data can no longer be read whole.
    if (head[DATA.length] === COLON && fieldIs(head, 0, DATA.length, DATA)) {
      hasData = true;
      incomplete = true;
      dataSource = EMPTY;
      moreData = undefined;
      dataOwned = true;
    }
  }

  const splitter = createLineSplitter({ line, oversizedLine }, { maxLineBytes: maxDataBytes });

  function feed(chunk: Uint8Array): void {
    splitter.feed(chunk);
    // An event may wait for its blank line in a later chunk: its data must not stay a range of this
    // one, which belongs to the application.
    if (!dataOwned) {
      dataSource = Buffer.from(dataSource.subarray(dataStart, dataEnd));
      dataStart = 0;
      dataEnd = dataSource.length;
      dataOwned = true;
    }
  }

  function reset(): void {
    splitter.reset();
    clearEvent();
    lastEventId = '';
  }

  return { feed, reset };
}
