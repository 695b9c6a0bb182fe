import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonKeys, parseObject, scanKeys, tokenCount } from './json-scan.ts';

const scan = (json: string, ...rest: [ReturnType<typeof jsonKeys>, number, number?]) => {
  // Inside a larger buffer, so that reading past the range would show.
  const buffer = Buffer.from(`"content":"x","text_delta":1${json}"usage":{"a":1},"error":1`);
  return scanKeys(buffer, 28, 28 + Buffer.byteLength(json), ...rest);
};
const has = (json: string, key: string) => scan(json, jsonKeys([key]), 1);

/** The reference: walk the parsed value for `key` at any depth with a value that is not empty. */
function referenceHasValue(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((item) => referenceHasValue(item, key));
  if (typeof value !== 'object' || value === null) return false;
  for (const [name, inner] of Object.entries(value)) {
    if (name === key && !isEmptyValue(inner)) return true;
    if (referenceHasValue(inner, key)) return true;
  }
  return false;
}

function isEmptyValue(value: unknown): boolean {
  if (value === null || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value as object).length === 0;
}

describe('scanKeys', () => {
  it('finds a key with a value worth parsing, at any depth', () => {
    assert.equal(has('{"choices":[{"delta":{"content":"hi"}}]}', 'content'), true);
    assert.equal(has('{"usage": {"prompt_tokens": 3}}', 'usage'), true);
    assert.equal(has('{"done": true}', 'done'), true);
    assert.equal(has('{"n": 0}', 'n'), true);
    assert.equal(has('{"tool_calls" :\n [ {"id":"x"} ]}', 'tool_calls'), true);
  });

  it('passes over null, false, "", [] and {} values, with any whitespace', () => {
    for (const value of ['null', 'false', '""', '[]', '{}', '[ ]', '{\n}']) {
      assert.equal(has(`{"content" : ${value}}`, 'content'), false, value);
    }
  });

  it('looks past an empty occurrence to a later one', () => {
    assert.equal(has('{"a":{"content":null},"b":{"content":"x"}}', 'content'), true);
  });

  it('does not take a string value, or text inside a string, for a key', () => {
    assert.equal(has('{"role":"content","x":1}', 'content'), false);
    assert.equal(has('{"text":"say \\"content\\": \\"x\\" please"}', 'content'), false);
    assert.equal(has('{"reasoning_details":[1]}', 'reasoning'), false);
  });

  it('matches tokens as keys or values alike', () => {
    const keys = jsonKeys([], ['error']);
    assert.equal(scan('{"object":"error","message":"m"}', keys, 1), true);
    assert.equal(scan('{"error":null}', keys, 1), true);
    assert.equal(scan('{"message":"an error"}', keys, 1), false);
  });

  it('gives up at a stop name, and finds wanted names before it', () => {
    const keys = jsonKeys([], ['text_delta', 'thinking_delta']);
    const [text, thinking] = [keys.mask('text_delta'), keys.mask('thinking_delta')];
    const textDelta = '{"delta":{"type":"text_delta","text":"\\"thinking_delta\\" said"}}';
    assert.equal(scan(textDelta, keys, thinking, text), false);
    assert.equal(scan('{"delta":{"type":"thinking_delta"}}', keys, thinking, text), true);
  });

  it('rejects a name it was not given', () => {
    assert.throws(() => jsonKeys(['a']).mask('b'), /unknown key b/);
  });

  it('agrees with a walk of the parsed value, for any JSON (property)', () => {
    const keys = ['content', 'text', 'usage'];
    // Strings that look like the keys, so escaping is exercised.
    const tricky = fc.constantFrom('content', '"content": "x"', 'text\\', '"usage":{"a":1}', '', ' ');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, true, false, 0, 7),
        fc.oneof(fc.string(), tricky),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 4 })), tie('node'), {
          maxKeys: 4,
        }),
      ),
    })).node;
    const compiled = jsonKeys(keys);
    fc.assert(
      fc.property(
        value,
        fc.constantFrom(0, 1, 2),
        fc.subarray(keys, { minLength: 1 }),
        (json, indent, wanted) => {
          const text = JSON.stringify(json, null, indent) ?? 'null';
          assert.equal(
            scan(text, compiled, compiled.mask(...wanted)),
            wanted.some((key) => referenceHasValue(json, key)),
            text,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('finds a name wherever it sits in a long text, across the middle too', () => {
    // Long texts are searched from both halves at once: every position must still be found.
    const keys = jsonKeys(['usage'], ['error']);
    for (const [name, wanted] of [
      ['"usage":{"a":1}', keys.mask('usage')],
      ['"error"', keys.mask('error')],
    ] as const) {
      for (let at = 0; at <= 120; at += 1) {
        const json = `{"p":"${'x'.repeat(at)}",${name},"q":"${'y'.repeat(120 - at)}"}`;
        assert.equal(scan(json, keys, wanted), true, json);
        assert.equal(scan(json.replace(name, '"other":1'), keys, wanted), false, json);
      }
    }
  });

  it('agrees with a walk of the parsed value in long texts (property)', () => {
    const keys = ['content', 'text', 'usage'];
    const tricky = fc.constantFrom('content', '"content": "x"', 'text\\', '"usage":{"a":1}', '', ' ');
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, true, false, 0, 7),
        fc.oneof(fc.string(), tricky),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 4 })), tie('node'), {
          maxKeys: 4,
        }),
      ),
    })).node;
    const compiled = jsonKeys(keys);
    fc.assert(
      fc.property(
        value,
        fc.string({ minLength: 40, maxLength: 120 }),
        fc.string({ minLength: 40, maxLength: 120 }),
        fc.subarray(keys, { minLength: 1 }),
        (json, before, after, wanted) => {
          const wrapped = { before, value: json, after };
          const text = JSON.stringify(wrapped);
          assert.equal(
            scan(text, compiled, compiled.mask(...wanted)),
            wanted.some((key) => referenceHasValue(wrapped, key)),
            text,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('parseObject', () => {
  it('returns the object, or undefined for malformed JSON and non-objects, without throwing', () => {
    assert.deepEqual(parseObject(Buffer.from('{"a":1}')), { a: 1 });
    assert.deepEqual(parseObject(Buffer.from('xx{"b":2}yy'), 2, 9), { b: 2 });
    for (const text of ['{"a":', '[1]', '"x"', '', 'null', '[DONE]']) {
      assert.equal(parseObject(Buffer.from(text)), undefined, text);
    }
  });
});

describe('tokenCount', () => {
  it('accepts non-negative whole numbers only', () => {
    assert.equal(tokenCount(12), 12);
    assert.equal(tokenCount(0), 0);
    for (const value of [-1, 1.5, '12', null, undefined, Number.NaN])
      assert.equal(tokenCount(value), undefined);
  });
});
