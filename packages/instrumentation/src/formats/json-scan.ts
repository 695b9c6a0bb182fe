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

function skipWhitespace(json: Buffer, at: number, end: number): number {
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
