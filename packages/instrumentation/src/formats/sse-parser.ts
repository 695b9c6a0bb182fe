import { Buffer } from 'node:buffer';
import { createLineSplitter, validateMaxLineBytes } from './line-splitter.ts';

/**
 * A server-sent events parser over raw bytes, following the WHATWG HTML standard, "9.2.6
 * Interpreting an event stream". Quotes in comments name the rule that decides each step.
 *
 * Unlike a browser's EventSource it hands on `data` as UTF-8 bytes, not as a string: the format
 * detectors look for a few byte patterns first and decode (and JSON-parse) only the events that can
 * matter to them.
 */

export interface ServerSentEvent {
  /** The `event` field; `message` when there was none or it was empty ("initialize event type"). */
  readonly type: string;
  /** The `data` fields joined with LF, as UTF-8 bytes. Only valid during `onEvent`: copy to keep. */
  readonly data: Buffer;
  /** The last event ID at dispatch ("set the last event ID string"), `''` before any `id` field. */
  readonly id: string;
  /** Data over the size cap was left out: `data` is not the event's whole data and must not be read. */
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

const COLON = 0x3a;
const SPACE = 0x20;
const NUL = 0x00;
const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');
const ID = Buffer.from('id');
const RETRY = Buffer.from('retry');
const LF = Buffer.from('\n');
const EMPTY = Buffer.alloc(0);

function fieldIs(line: Buffer, nameEnd: number, name: Buffer): boolean {
  if (nameEnd !== name.length) return false;
  for (let i = 0; i < nameEnd; i += 1) if (line[i] !== name[i]) return false;
  return true;
}

function onlyAsciiDigits(value: Buffer): boolean {
  if (value.length === 0) return false;
  for (const byte of value) if (byte < 0x30 || byte > 0x39) return false;
  return true;
}

export function createSseParser(callbacks: SseCallbacks, options?: SseParserOptions): SseParser {
  const maxDataBytes = validateMaxLineBytes(options?.maxLineBytes);

  // The three buffers of the algorithm; the data buffer is kept as pieces joined at dispatch.
  let eventType = '';
  let dataPieces: Buffer[] = [];
  let dataBytes = 0; // bytes in dataPieces plus the LFs that will join them
  let ownedPieces = 0; // dataPieces[0, ownedPieces) are copies; later ones may be views into a chunk
  let hasData = false; // "If the data buffer is an empty string": no data field since the last dispatch
  let incomplete = false;
  let lastEventId = '';

  function clearEvent(): void {
    eventType = '';
    dataPieces = [];
    dataBytes = 0;
    ownedPieces = 0;
    hasData = false;
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
    // last character": the pieces are joined with LF between them, never after the last one.
    let data: Buffer;
    if (incomplete || dataPieces.length === 0) data = EMPTY;
    else if (dataPieces.length === 1) data = dataPieces[0] as Buffer;
    else {
      const parts: Buffer[] = [];
      for (const piece of dataPieces) parts.push(piece, LF);
      parts.pop();
      data = Buffer.concat(parts, dataBytes);
    }
    const event: ServerSentEvent = {
      type: eventType === '' ? 'message' : eventType,
      data,
      id: lastEventId,
      incomplete,
    };
    clearEvent();
    callbacks.onEvent(event);
  }

  function appendData(value: Buffer): void {
    hasData = true;
    if (incomplete) return;
    const bytes = dataBytes + (dataPieces.length > 0 ? 1 : 0) + value.length;
    if (bytes > maxDataBytes) {
      incomplete = true;
      dataPieces = [];
      dataBytes = 0;
      ownedPieces = 0;
      callbacks.onIssue?.({ type: 'event-too-long', bytes });
      return;
    }
    dataPieces.push(value);
    dataBytes = bytes;
  }

  function line(line: Buffer): void {
    // "If the line is empty (a blank line): Dispatch the event."
    if (line.length === 0) {
      dispatch();
      return;
    }
    // "If the line starts with a U+003A COLON character (:): Ignore the line." (a comment)
    if (line[0] === COLON) return;
    // "If the line contains a U+003A COLON character: collect the characters on the line before the
    // first colon, and let field be that string; collect the characters on the line after the first
    // colon, and let value be that string. If value starts with a U+0020 SPACE character, remove it
    // from value." Otherwise: "using the whole line as the field name, and the empty string as the
    // field value."
    const colon = line.indexOf(COLON);
    const nameEnd = colon === -1 ? line.length : colon;
    let valueStart = colon === -1 ? line.length : colon + 1;
    if (line[valueStart] === SPACE) valueStart += 1;
    const value = line.subarray(valueStart);

    // "If the field name is 'data': Append the field value to the data buffer, then append a single
    // U+000A LINE FEED (LF) character to the data buffer."
    if (fieldIs(line, nameEnd, DATA)) appendData(value);
    // "If the field name is 'event': Set the event type buffer to field value."
    else if (fieldIs(line, nameEnd, EVENT)) eventType = value.toString('utf8');
    // "If the field name is 'id': If the field value does not contain U+0000 NULL, then set the last
    // event ID buffer to the field value. Otherwise, ignore the field."
    else if (fieldIs(line, nameEnd, ID)) {
      if (value.indexOf(NUL) === -1) lastEventId = value.toString('utf8');
    }
    // "If the field name is 'retry': If the field value consists of only ASCII digits, then interpret
    // the field value as an integer in base ten [and set the reconnection time]. Otherwise, ignore."
    else if (fieldIs(line, nameEnd, RETRY)) {
      if (onlyAsciiDigits(value)) callbacks.onRetry?.(Number(value.toString('latin1')));
    }
    // "Otherwise: The field is ignored."
  }

  function oversizedLine(head: Buffer, bytes: number): void {
    callbacks.onIssue?.({ type: 'line-too-long', bytes });
    // A skipped data line still made the event non-empty; its data can no longer be read whole.
    if (head.length > DATA.length && fieldIs(head, DATA.length, DATA) && head[DATA.length] === COLON) {
      hasData = true;
      incomplete = true;
      dataPieces = [];
      dataBytes = 0;
      ownedPieces = 0;
    }
  }

  const splitter = createLineSplitter({ line, oversizedLine }, { maxLineBytes: maxDataBytes });

  function feed(chunk: Uint8Array): void {
    splitter.feed(chunk);
    // An event may wait for its blank line in a later chunk: its data must not stay a view into this
    // one, which belongs to the application.
    for (; ownedPieces < dataPieces.length; ownedPieces += 1) {
      dataPieces[ownedPieces] = Buffer.from(dataPieces[ownedPieces] as Buffer);
    }
  }

  function reset(): void {
    splitter.reset();
    clearEvent();
    lastEventId = '';
  }

  return { feed, reset };
}
