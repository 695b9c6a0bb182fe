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
 * One pass over the JSON text `json[start, end)`, in JavaScript: one native search per key costs more
 * than reading every byte once. True at the first name in `wanted` that occurs (a key with a value
 * worth parsing, or a token); false at the first name in `stop` (a key or value that says the rest
 * cannot matter), or at the end. A true is a reason to parse, not an answer.
 */
export function scanKeys(
  json: Buffer,
  start: number,
  end: number,
  keys: JsonKeys,
  wanted: number,
  stop = 0,
): boolean {
  const { bytes, byFirstByte, tokenMask } = keys as CompiledKeys;
  const either = wanted | stop;
  const last = end - 1;
  for (let i = start; i < last; i += 1) {
    if (json[i] !== QUOTE) continue;
    let candidates = (byFirstByte[json[i + 1] as number] as number) & either;
    while (candidates !== 0) {
      const bit = 31 - Math.clz32(candidates);
      candidates &= ~(1 << bit);
      const name = bytes[bit] as Buffer;
      if (!nameAt(json, i + 1, end, name)) continue;
      const flag = 1 << bit;
      if ((stop & flag) !== 0) return false;
      if ((tokenMask & flag) !== 0) return true;
      const colon = skipWhitespace(json, i + 2 + name.length, end);
      if (
        json[colon] === COLON &&
        colon < end &&
        isWorthReading(json, skipWhitespace(json, colon + 1, end), end)
      ) {
        return true;
      }
    }
  }
  return false;
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
