import { Buffer } from 'node:buffer';

/**
 * Cheap questions asked of a JSON text's bytes before deciding to parse it.
 *
 * Why a byte search is exact enough: inside a JSON string every `"` is escaped as `\"`, so the bytes
 * `"name"` — a quote, the name, a quote — can only be a string token of the document itself, never a
 * piece of the text a string carries. Followed by a colon, it is an object key. A key spelled with
 * `\u` escapes would be missed; no provider writes its keys that way.
 */

const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const LOWER_N = 0x6e; // null
const LOWER_F = 0x66; // false
const BACKSLASH = 0x5c;

/**
 * The keys one detector asks about, compiled for `scanKeys`. Bit `i` of a mask stands for the `i`th
 * name. `names` match as object keys with a value worth parsing; `tokens` match as any string token,
 * key or value (`"error"` in `{"error": …}` and in `{"object": "error"}` alike).
 */
export interface JsonKeys {
  /** The mask of the given names (keys or tokens). */
  mask(...names: string[]): number;
  readonly names: readonly string[];
}

interface CompiledKeys extends JsonKeys {
  readonly bytes: readonly Buffer[];
  /** For each byte value, the mask of the names that start with it. */
  readonly byFirstByte: Int32Array;
  readonly tokenMask: number;
  /** Skip tables by the mask of names searched for, built on first use (a detector asks few masks). */
  readonly skipTables: Map<number, SkipTable>;
  /** The table asked for last, and its mask: a detector asks the same mask event after event. */
  lastMask: number;
  lastTable: SkipTable | undefined;
}

/**
 * A Horspool skip table for a set of quoted names (`"usage"`, `"error"`, …): the search looks at
 * the last byte of a window as long as the shortest of them and jumps as far as no occurrence can
 * start in between. Most bytes of a JSON text are never read: after a stream's first text, where a
 * detector looks for two or three names, a window moves 5–6 bytes at a time.
 */
interface SkipTable {
  /** The window: the length of the shortest quoted name in the set. */
  readonly window: number;
  /** For each byte value: the jump (low 7 bits), and bit 7 when a quoted name can end a window there. */
  readonly steps: Uint8Array;
}

const VERIFY = 0x80;
const MAX_STEP = 0x7f;

function skipTable(bytes: readonly Buffer[], mask: number): SkipTable {
  const quoted: Buffer[] = [];
  for (let bit = 0; bit < bytes.length; bit += 1) {
    if ((mask & (1 << bit)) !== 0) quoted.push(Buffer.concat([Buffer.of(QUOTE), bytes[bit] as Buffer]));
  }
  const window = Math.min(...quoted.map((name) => name.length + 1)); // with the closing quote
  const steps = new Uint8Array(256).fill(Math.min(window, MAX_STEP));
  const pattern = (name: Buffer, i: number) => (i < name.length ? (name[i] as number) : QUOTE);
  for (const name of quoted) {
    // Horspool: a byte at window position i (before the last) allows a jump of window − 1 − i.
    for (let i = 0; i < window - 1; i += 1) {
      const byte = pattern(name, i);
      const step = Math.min(window - 1 - i, MAX_STEP);
      if (step < ((steps[byte] as number) & MAX_STEP))
        steps[byte] = ((steps[byte] as number) & VERIFY) | step;
    }
  }
  for (const name of quoted) {
    const byte = pattern(name, window - 1);
    steps[byte] = (steps[byte] as number) | VERIFY;
  }
  return { window, steps };
}

export function jsonKeys(names: readonly string[], tokens: readonly string[] = []): JsonKeys {
  const all = [...names, ...tokens];
  if (all.length > 31) throw new RangeError('jsonKeys takes at most 31 names');
  const bytes = all.map((name) => Buffer.from(name, 'utf8'));
  const byFirstByte = new Int32Array(256);
  bytes.forEach((name, bit) => {
    byFirstByte[name[0] ?? 0] = (byFirstByte[name[0] ?? 0] ?? 0) | (1 << bit);
  });
  const compiled: CompiledKeys = {
    names: all,
    bytes,
    byFirstByte,
    tokenMask: tokens.reduce((mask, _name, i) => mask | (1 << (names.length + i)), 0),
    skipTables: new Map(),
    lastMask: 0,
    lastTable: undefined,
    mask(...wanted) {
      let mask = 0;
      for (const name of wanted) {
        const bit = all.indexOf(name);
        if (bit === -1) throw new RangeError(`unknown key ${name}`);
        mask |= 1 << bit;
      }
      return mask;
    },
  };
  return compiled;
}

export function skipWhitespace(json: Buffer, at: number, end: number): number {
  let i = at;
  while (i < end) {
    const byte = json[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return i;
    i += 1;
  }
  return end;
}

/** Whether the value at `at` is worth parsing: not `null`, `false`, `""`, `[]` or `{}` (nor absent). */
function isWorthReading(json: Buffer, at: number, end: number): boolean {
  if (at >= end) return false;
  switch (json[at]) {
    case LOWER_N:
    case LOWER_F:
      return false;
    case QUOTE:
      return at + 1 < end && json[at + 1] !== QUOTE;
    case OPEN_BRACKET: {
      const next = skipWhitespace(json, at + 1, end);
      return next < end && json[next] !== CLOSE_BRACKET;
    }
    case OPEN_BRACE: {
      const next = skipWhitespace(json, at + 1, end);
      return next < end && json[next] !== CLOSE_BRACE;
    }
    default:
      return true;
  }
}

function nameAt(json: Buffer, at: number, end: number, name: Buffer): boolean {
  const length = name.length;
  if (at + length >= end || json[at + length] !== QUOTE) return false;
  for (let k = 1; k < length; k += 1) if (json[at + k] !== name[k]) return false;
  return true;
}

/**
 * One left-to-right search of the JSON text `json[start, end)`, in JavaScript: one native search per
 * key costs more than a Horspool skip over the bytes (see `SkipTable`). True at the first name in
 * `wanted` that occurs (a key with a value worth parsing, or a token); false at the first name in
 * `stop` (a key or value that says the rest cannot matter), or at the end. A true is a reason to
 * parse, not an answer.
 */
export function scanKeys(
  json: Buffer,
  start: number,
  end: number,
  keys: JsonKeys,
  wanted: number,
  stop = 0,
): boolean {
  const compiled = keys as CompiledKeys;
  const either = wanted | stop;
  if (either === 0) return false;
  let table = compiled.lastTable;
  if (either !== compiled.lastMask || table === undefined) {
    table = compiled.skipTables.get(either);
    if (table === undefined) {
      table = skipTable(compiled.bytes, either);
      compiled.skipTables.set(either, table);
    }
    compiled.lastMask = either;
    compiled.lastTable = table;
  }
  const { window, steps } = table;
  let last = start + window - 1;
  if (stop === 0 && end - start >= TWO_CURSORS_FROM) {
    // With no stop name, the answer does not depend on which occurrence comes first: the two halves
    // are searched side by side. Each jump waits on the byte it lands on; two independent chains of
    // jumps keep the processor busy while either waits.
    const half = start + ((end - start) >> 1);
    const firstEnd = half + window - 1; // the first cursor covers names starting before `half`
    let second = firstEnd;
    while (last < firstEnd && second < end) {
      const step = steps[json[last] as number] as number;
      const secondStep = steps[json[second] as number] as number;
      if (step >= VERIFY && json[last - window + 1] === QUOTE) {
        if (nameStartingAt(json, last - window + 1, end, compiled, either, 0) === WANTED) return true;
      }
      if (secondStep >= VERIFY && json[second - window + 1] === QUOTE) {
        if (nameStartingAt(json, second - window + 1, end, compiled, either, 0) === WANTED) return true;
      }
      last += step & MAX_STEP;
      second += secondStep & MAX_STEP;
    }
    // One cursor is through its half; the other finishes alone.
    if (last < firstEnd) return searchFrom(json, last, firstEnd, end, table, compiled, either, 0) === WANTED;
    last = second;
  }
  return searchFrom(json, last, end, end, table, compiled, either, stop) === WANTED;
}

/** Ranges shorter than this are searched with one cursor: the second would cost more than it saves. */
const TWO_CURSORS_FROM = 64;

/**
 * The Horspool search with its window's last byte from `from`, up to windows ending before `until`;
 * names may run on to `end`. Returns the kind of the first name found.
 */
function searchFrom(
  json: Buffer,
  from: number,
  until: number,
  end: number,
  table: SkipTable,
  keys: CompiledKeys,
  either: number,
  stop: number,
): number {
  const { window, steps } = table;
  for (let last = from; last < until; ) {
    const step = steps[json[last] as number] as number;
    if (step >= VERIFY && json[last - window + 1] === QUOTE) {
      const found = nameStartingAt(json, last - window + 1, end, keys, either, stop);
      if (found !== NOT_FOUND) return found;
    }
    last += step & MAX_STEP;
  }
  return NOT_FOUND;
}

const NOT_FOUND = 0;
const WANTED = 1;
const STOP = 2;

/** Whether one of the names in `either` starts after the quote at `at`, and which kind it is. */
function nameStartingAt(
  json: Buffer,
  at: number,
  end: number,
  keys: CompiledKeys,
  either: number,
  stop: number,
): number {
  let candidates = (keys.byFirstByte[json[at + 1] as number] as number) & either;
  while (candidates !== 0) {
    const bit = 31 - Math.clz32(candidates);
    candidates &= ~(1 << bit);
    const name = keys.bytes[bit] as Buffer;
    if (!nameAt(json, at + 1, end, name)) continue;
    const flag = 1 << bit;
    if ((stop & flag) !== 0) return STOP;
    if ((keys.tokenMask & flag) !== 0) return WANTED;
    const colon = skipWhitespace(json, at + 2 + name.length, end);
    if (
      json[colon] === COLON &&
      colon < end &&
      isWorthReading(json, skipWhitespace(json, colon + 1, end), end)
    ) {
      return WANTED;
    }
  }
  return NOT_FOUND;
}

/** Where `soleKey` found its one name: the name's bit, its opening quote, and its value's first byte. */
export interface KeyHit {
  bit: number;
  key: number;
  value: number;
}

/**
 * Whether exactly one occurrence of the names in `wanted` is in `json[start, end)`, counted as
 * `scanKeys` counts them (a key with a value worth parsing, or a token); if so `hit` says where.
 * Reads every window with one cursor, past the first occurrence: for an event `scanKeys` already
 * found worth a look, where a `JSON.parse` is the alternative.
 */
export function soleKey(
  json: Buffer,
  start: number,
  end: number,
  keys: JsonKeys,
  wanted: number,
  hit: KeyHit,
): boolean {
  const compiled = keys as CompiledKeys;
  if (wanted === 0) return false;
  let table = compiled.skipTables.get(wanted);
  if (table === undefined) {
    table = skipTable(compiled.bytes, wanted);
    compiled.skipTables.set(wanted, table);
  }
  const { window, steps } = table;
  let found = 0;
  for (let last = start + window - 1; last < end; ) {
    const step = steps[json[last] as number] as number;
    if (step >= VERIFY && json[last - window + 1] === QUOTE) {
      const at = last - window + 1;
      const bit = wantedNameAt(json, at, end, compiled, wanted);
      if (bit !== -1) {
        found += 1;
        if (found > 1) return false;
        hit.bit = bit;
        hit.key = at;
        hit.value = valueStart;
      }
    }
    last += step & MAX_STEP;
  }
  return found === 1;
}

/** The value position `wantedNameAt` found last (a token's is the byte after it). */
let valueStart = 0;

/** The bit of the name in `wanted` that occurs at the quote `at` as `scanKeys` counts it, else -1. */
function wantedNameAt(json: Buffer, at: number, end: number, keys: CompiledKeys, wanted: number): number {
  let candidates = (keys.byFirstByte[json[at + 1] as number] as number) & wanted;
  while (candidates !== 0) {
    const bit = 31 - Math.clz32(candidates);
    candidates &= ~(1 << bit);
    const name = keys.bytes[bit] as Buffer;
    if (!nameAt(json, at + 1, end, name)) continue;
    if ((keys.tokenMask & (1 << bit)) !== 0) {
      valueStart = at + 2 + name.length;
      return bit;
    }
    const colon = skipWhitespace(json, at + 2 + name.length, end);
    if (json[colon] !== COLON || colon >= end) continue;
    const value = skipWhitespace(json, colon + 1, end);
    if (!isWorthReading(json, value, end)) continue;
    valueStart = value;
    return bit;
  }
  return -1;
}

/** The closing quote of the JSON string opening at `open`, else -1. */
export function stringEnd(json: Buffer, open: number, end: number): number {
  for (let i = open + 1; i < end; i += 1) {
    const byte = json[i];
    if (byte === BACKSLASH) i += 1;
    else if (byte === QUOTE) return i;
  }
  return -1;
}

/**
 * Whether `json[start, end)` is one object whose brackets and strings close exactly at its end — what
 * a stream's event is, unless it was cut short. If so, `path` is filled with the containers open at
 * `at` (before the byte there), outermost first: for each, where the key it is the value of starts
 * (its opening quote), or -1 (the outermost object, an array's element).
 */
export function pathIn(json: Buffer, start: number, end: number, at: number, path: number[]): boolean {
  const first = skipWhitespace(json, start, end);
  let last = end - 1;
  while (last > first && isWhitespace(json[last])) last -= 1;
  if (json[first] !== OPEN_BRACE || json[last] !== CLOSE_BRACE) return false;
  const open: number[] = [];
  let string = -1; // the last string's opening quote, until something else comes
  let key = -1; // a string followed by a colon: what the next value is the value of
  path.length = 0;
  for (let i = first; i <= last; i += 1) {
    if (i === at) path.push(...open);
    const byte = json[i];
    if (byte === QUOTE) {
      const close = stringEnd(json, i, last);
      if (close === -1) return false;
      string = i;
      i = close;
      continue;
    }
    if (byte === COLON) key = string;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      open.push(key);
      key = -1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      open.pop();
      // Closed before its last byte (something follows it), or more closed than opened.
      if (open.length === 0 && i !== last) return false;
    } else if (byte === 0x2c) key = -1;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== COLON) string = -1;
  }
  return open.length === 0;
}

/** Whether the key whose opening quote is at `at` is `"name"`. */
export function keyIs(json: Buffer, at: number, name: Buffer): boolean {
  return (
    at >= 0 && json[at + name.length + 1] === QUOTE && bytesEqual(json, at + 1, at + 1 + name.length, name)
  );
}

/**
 * The member `name` of the object whose `{` is at `open`, when its value is a plain whole number
 * (`0`, or up to 15 digits without a leading zero): undefined when the object has no such member,
 * NaN when it has one of another kind, or twice, or the object does not close.
 */
export function integerMember(json: Buffer, open: number, end: number, name: Buffer): number | undefined {
  let depth = 0;
  let result: number | undefined;
  for (let i = open; i < end; i += 1) {
    const byte = json[i];
    if (byte === QUOTE) {
      const close = stringEnd(json, i, end);
      if (close === -1) return Number.NaN;
      if (depth === 1 && close - i - 1 === name.length && bytesEqual(json, i + 1, close, name)) {
        const colon = skipWhitespace(json, close + 1, end);
        if (json[colon] === COLON) {
          if (result !== undefined) return Number.NaN;
          result = plainInteger(json, skipWhitespace(json, colon + 1, end), end);
          if (Number.isNaN(result)) return result;
        }
      }
      i = close;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
    else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return result;
    }
  }
  return Number.NaN;
}

/** `0` or a whole number of up to 15 digits without a leading zero, ended by `,`, `}` or a space; else NaN. */
function plainInteger(json: Buffer, at: number, end: number): number {
  let value = 0;
  let i = at;
  while (i < end && i - at < 16) {
    const byte = json[i] as number;
    if (byte < 0x30 || byte > 0x39) break;
    value = value * 10 + (byte - 0x30);
    i += 1;
  }
  const digits = i - at;
  if (digits === 0 || digits > 15 || (digits > 1 && json[at] === 0x30)) return Number.NaN;
  const next = json[i];
  if (next !== 0x2c && next !== CLOSE_BRACE && !isWhitespace(next)) return Number.NaN;
  return value;
}

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Whether `json[start, end)` is exactly the bytes of `literal`. */
export function bytesEqual(json: Buffer, start: number, end: number, literal: Buffer): boolean {
  if (end - start !== literal.length) return false;
  for (let i = 0; i < literal.length; i += 1) if (json[start + i] !== literal[i]) return false;
  return true;
}

export type JsonObject = { readonly [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON object in `json[start, end)`, or undefined when it is not one. Never throws: a malformed
 * event is skipped, and the parser's error (whose message quotes the input) is dropped unread.
 */
export function parseObject(json: Buffer, start = 0, end = json.length): JsonObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8', start, end));
  } catch {
    return undefined;
  }
  return isObject(value) ? value : undefined;
}

export function objectAt(value: unknown, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const inner = value[key];
  return isObject(inner) ? inner : undefined;
}

export function arrayAt(value: unknown, key: string): readonly unknown[] | undefined {
  if (!isObject(value)) return undefined;
  const inner = value[key];
  return Array.isArray(inner) ? inner : undefined;
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** A token count: a non-negative safe integer, else undefined. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
