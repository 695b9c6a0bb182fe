import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FORMATS, selectFormat } from './index.ts';
import type { Format } from './stream-observer.ts';
import {
  byteByByte,
  detect,
  endingsOf,
  type GoldenCase,
  goldenBody,
  loadGoldenCases,
  PLAIN_TEXT,
  RecordingObserver,
  splitAt,
} from './testdata/harness.ts';

// Every golden case in testdata/: a body shaped like the provider's real stream, and the observer
// calls it must produce — whatever the line endings and however the bytes are cut into chunks.

const CASES = loadGoldenCases();
// Multi-byte too, so that a split inside the canary is a split inside a code point.
const CANARY = 'CANARY-7f3a9c1e ünïcødé 🐙';

/** Feeds chunks through one scratch buffer that is overwritten after each feed, as a pool would. */
function detectThroughReusedBuffer(format: Format, chunks: readonly Buffer[]): string[] {
  const scratch = Buffer.alloc(Math.max(1, ...chunks.map((chunk) => chunk.length)));
  const observer = new RecordingObserver();
  const detector = format.createDetector(observer);
  for (const chunk of chunks) {
    chunk.copy(scratch);
    detector.feed(scratch.subarray(0, chunk.length));
    scratch.fill(0x7b); // `{`: stale views would now read garbage
  }
  detector.end();
  return observer.calls;
}

/** The golden case's template with a malformed event first. */
function withMalformedEvent(golden: GoldenCase): string {
  // Unterminated JSON holding every key any detector looks for, so that it reaches JSON.parse.
  const broken =
    '{"type":"response.output_text.delta","delta":"{{SECRET}}","choices":[{"delta":{"content":"{{SECRET}}",' +
    '"reasoning":"x"}}],"message":{"content":"x","thinking":"x"},"response":"x","text":"x","thought":true,' +
    '"finishReason":"STOP","done":true,"usage":{"prompt_tokens":1},"error":{"type":"x"},"partial_json":"{{SECRET}}';
  if (golden.encoding === 'eventstream') {
    // A message of the kind the format reads, its JSON cut short; the rest of the messages after it.
    const type = golden.format === 'bedrock_invoke' ? 'chunk' : 'contentBlockDelta';
    const headers = { ':event-type': type, ':message-type': 'event', ':content-type': 'application/json' };
    const spec =
      golden.format === 'bedrock_invoke' ? { headers, bytesRaw: broken } : { headers, raw: broken };
    return `[${JSON.stringify(spec)},${golden.template.trimStart().slice(1)}`;
  }
  return (golden.template.startsWith('{') ? `${broken}\n` : `data: ${broken}\n\n`) + golden.template;
}

describe('golden cases', () => {
  it('has a case for every format', () => {
    const covered = new Set(CASES.map((golden) => golden.format));
    assert.deepEqual([...covered].sort(), Object.keys(FORMATS).sort());
  });

  for (const golden of CASES) {
    describe(golden.name, () => {
      // The detector its path and content type select (a format may come in more than one framing).
      const format = selectFormat(golden.path, golden.contentType, golden.family) ?? FORMATS[golden.format];

      it(`is selected as ${golden.format} from its path and content type`, () => {
        assert.equal(selectFormat(golden.path, golden.contentType, golden.family)?.name, golden.format);
      });

      it('gives the expected calls fed whole and byte by byte, with LF, CRLF and CR', () => {
        for (const ending of endingsOf(golden)) {
          const body = goldenBody(golden, golden.template, PLAIN_TEXT, ending);
          assert.deepEqual(detect(format, [body]), golden.expected, `whole, ${JSON.stringify(ending)}`);
          assert.deepEqual(
            detect(format, byteByByte(body)),
            golden.expected,
            `bytes, ${JSON.stringify(ending)}`,
          );
        }
      });

      it('gives the same calls at any split points, even when the chunk buffer is reused', () => {
        for (const ending of endingsOf(golden)) {
          const body = goldenBody(golden, golden.template, PLAIN_TEXT, ending);
          fc.assert(
            fc.property(
              fc.array(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 40 }),
              (offsets) => {
                const chunks = splitAt(body, offsets);
                assert.deepEqual(detect(format, chunks), golden.expected);
                assert.deepEqual(detectThroughReusedBuffer(format, chunks), golden.expected);
              },
            ),
            { numRuns: 60 },
          );
        }
      });

      it('counts a malformed event as an event and reads on', () => {
        const template = withMalformedEvent(golden);
        for (const ending of endingsOf(golden)) {
          const body = goldenBody(golden, template, PLAIN_TEXT, ending);
          assert.deepEqual(detect(format, [body]), ['event', ...golden.expected]);
          assert.deepEqual(detect(format, byteByByte(body)), ['event', ...golden.expected]);
        }
      });

      it('never passes on the text, reasoning, arguments or error messages (canary)', () => {
        const template = withMalformedEvent(golden);
        for (const ending of endingsOf(golden)) {
          const body = goldenBody(golden, template, CANARY, ending);
          // Bedrock's invoke API carries it in base64: there, the template must have a place for it.
          assert.ok(
            golden.encoding === 'text' ? body.includes(CANARY) : template.includes('{{SECRET}}'),
            'the canary is in the body',
          );
          fc.assert(
            fc.property(fc.array(fc.nat({ max: body.length }), { maxLength: 30 }), (offsets) => {
              let calls: string[] = [];
              try {
                calls = detect(format, offsets.length === 0 ? byteByByte(body) : splitAt(body, offsets));
              } catch (error) {
                assert.fail(
                  `threw ${error instanceof Error && error.message.includes('CANARY') ? 'with' : 'without'} the canary`,
                );
              }
              for (const call of calls) assert.ok(!call.includes('CANARY'), call);
              assert.deepEqual(calls, ['event', ...golden.expected]);
            }),
            { numRuns: 20 },
          );
        }
      });
    });
  }
});
