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

/** A key as the bytes `hasValue` looks for. */
export function jsonKey(name: string): Buffer {
  return Buffer.from(JSON.stringify(name));
}

function skipWhitespace(json: Buffer, at: number): number {
  let i = at;
  for (;;) {
    const byte = json[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return i;
    i += 1;
  }
}

/**
 * Whether `key` appears somewhere in `json` (at any depth) as an object key whose value is not
 * `null`, `false`, `""`, `[]` or `{}`. A yes is a reason to parse, not an answer.
 */
export function hasValue(json: Buffer, key: Buffer): boolean {
  let at = json.indexOf(key);
  while (at !== -1) {
    let i = skipWhitespace(json, at + key.length);
    if (json[i] === COLON) {
      i = skipWhitespace(json, i + 1);
      switch (json[i]) {
        case undefined:
        case LOWER_N:
        case LOWER_F:
          break;
        case QUOTE:
          if (json[i + 1] !== QUOTE) return true;
          break;
        case OPEN_BRACKET:
          if (json[skipWhitespace(json, i + 1)] !== CLOSE_BRACKET) return true;
          break;
        case OPEN_BRACE:
          if (json[skipWhitespace(json, i + 1)] !== CLOSE_BRACE) return true;
          break;
        default:
          return true;
      }
    }
    at = json.indexOf(key, at + key.length);
  }
  return false;
}

/** Whether the bytes `pattern` appear in `json`. */
export function contains(json: Buffer, pattern: Buffer): boolean {
  return json.indexOf(pattern) !== -1;
}

export type JsonObject = { readonly [key: string]: unknown };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON object in `json`, or undefined when it is not one. Never throws: a malformed event is
 * skipped, and the parser's error (whose message quotes the input) is dropped unread.
 */
export function parseObject(json: Buffer): JsonObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
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
