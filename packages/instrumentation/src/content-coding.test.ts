import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, beforeEach, describe, it, mock } from 'node:test';
import zlib from 'node:zlib';
import fc from 'fast-check';
import OpenAI from 'openai';
import * as undici8 from 'undici';
import {
  assertMilestonesRecordedWithin,
  codedPieces,
  codingHeader,
  exportedText,
  type Harness,
  type Piece,
  type ScriptedServer,
  sse,
  startHarness,
  startScriptedServer,
  type TestCoding,
  waitFor,
} from '../test/harness.ts';
import {
  type ContentCoding,
  contentCodingOf,
  DecodingDetector,
  type DecodingSink,
  GROUP_MS,
  MAX_DECODER_BACKLOG,
} from './content-coding.ts';
import type { StreamDetector } from './formats/index.ts';
import { bundledUndiciPublishesChunks } from './instrumentation.ts';
import { MILESTONE_SPAN_MS } from './names.ts';

const CANARY = 'CANARY-c0ded-do-not-export';
const path = bundledUndiciPublishesChunks() ? 'diagnostics channel' : 'dispatcher pass-through';
const CODINGS: readonly TestCoding[] = ['gzip', 'deflate', 'deflate-raw', 'br', 'zstd'];
const MILESTONES = ['headers', 'first_chunk', 'first_output', 'first_text', 'end'] as const;

/** An OpenAI chat stream: role at 40 ms, reasoning at 80, text at 120, more text, usage, [DONE]. */
function chatPieces(): Piece[] {
  const chunk = (delta: object) =>
    sse({ id: 'c1', object: 'chat.completion.chunk', model: 'gpt-test', choices: [{ index: 0, delta }] });
  return [
    { at: 40, bytes: chunk({ role: 'assistant', content: '' }) },
    { at: 80, bytes: chunk({ reasoning_content: `thinking ${CANARY}` }) },
    { at: 120, bytes: chunk({ content: `Hello ${CANARY}` }) },
    { at: 140, bytes: chunk({ content: ' world' }) },
    { at: 160, bytes: sse({ id: 'c1', choices: [], usage: { prompt_tokens: 11, completion_tokens: 7 } }) },
    { at: 170, bytes: 'data: [DONE]\n\n' },
  ];
}
const plainText = chatPieces()
  .map((p) => p.bytes)
  .join('');

const body = JSON.stringify({
  model: 'gpt-test',
  stream: true,
  messages: [{ role: 'user', content: CANARY }],
});

describe('contentCodingOf: the coding a Content-Encoding names', () => {
  it('reads the codings fetch decodes, in any case and with identity around them', () => {
    const cases: Array<[string | undefined, ContentCoding | undefined | null]> = [
      [undefined, undefined],
      ['', undefined],
      ['identity', undefined],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['GZip', 'gzip'],
      [' br ', 'br'],
      ['deflate', 'deflate'],
      ['zstd', 'zstd'],
      ['identity, gzip', 'gzip'],
      ['compress', null], // a coding nobody decodes
      ['gzip, br', null], // two applied in turn
      ['x-custom', null],
    ];
    for (const [value, expected] of cases) assert.equal(contentCodingOf(value), expected, String(value));
  });
});

/** A format detector that keeps what it is fed, and each piece's arrival instant as the sink said it. */
function recordingDetector(sink: DecodingSink) {
  const fed: Array<{ bytes: Buffer; arrivedAt: number | undefined }> = [];
  let ends = 0;
  const detector: StreamDetector = {
    feed: (chunk) => fed.push({ bytes: Buffer.from(chunk), arrivedAt: sink.arrivedAt }),
    end: () => {
      ends++;
    },
  };
  return {
    detector,
    fed,
    text: () => Buffer.concat(fed.map((f) => f.bytes)).toString(),
    ends: () => ends,
  };
}

function sinkOf(): DecodingSink & { reasons: string[]; firstTextAt: number | undefined } {
  const reasons: string[] = [];
  return {
    arrivedAt: undefined,
    firstTextAt: undefined,
    reasons,
    undecodable(reason) {
      reasons.push(reason);
    },
  };
}

/** Waits until the format detector has been fed the plain bytes of pieces 0 to `last`. */
async function decodedThrough(inner: ReturnType<typeof recordingDetector>, last: number): Promise<void> {
  const through = chatPieces()
    .slice(0, last + 1)
    .map((p) => p.bytes)
    .join('');
  await waitFor(() => inner.text() === through, 10_000);
}

/** A gzip decoding detector over a recording one, and the chat stream's coded pieces to feed it. */
async function gzipDetector() {
  const pieces = await codedPieces(chatPieces(), 'gzip');
  const sink = sinkOf();
  const inner = recordingDetector(sink);
  const d = new DecodingDetector('gzip', inner.detector, sink, () => {});
  return { pieces, sink, inner, d };
}

const closed = (d: DecodingDetector, bodyEnded = true) =>
  new Promise<void>((resolve) => d.close(bodyEnded, resolve));

describe('DecodingDetector: what reaches the format detector', () => {
  for (const coding of CODINGS) {
    it(`${coding}: the stream's own bytes, however the coded body is split, whenever the decoder answers and wherever the first text is`, async () => {
      const coded = Buffer.concat((await codedPieces(chatPieces(), coding)).map((p) => Buffer.from(p.bytes)));
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: coded.length - 1 }), { maxLength: 12 }),
          fc.nat({ max: 14 }),
          fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
          async (cuts, firstTextAfter, pauses) => {
            const sink = sinkOf();
            const inner = recordingDetector(sink);
            const d = new DecodingDetector(
              contentCodingOf(codingHeader(coding)) as ContentCoding,
              inner.detector,
              sink,
              (e) => {
                throw e;
              },
            );
            const points = [0, ...cuts.sort((a, b) => a - b), coded.length];
            for (let i = 0; i + 1 < points.length; i++) {
              // From the first text on, chunks are decoded in batches: the rest must still all arrive.
              if (i === firstTextAfter) sink.firstTextAt = 1;
              d.feed(coded.subarray(points[i], points[i + 1]));
              // Sometimes the decoder answers before the next chunk, sometimes not.
              if (pauses[i]) await new Promise((resolve) => setTimeout(resolve, 3));
            }
            await closed(d);
            assert.equal(inner.text(), plainText);
            assert.equal(inner.ends(), 1, 'the format detector is ended once, after the last bytes');
            assert.deepEqual(sink.reasons, []);
            assert.equal(
              sink.arrivedAt,
              undefined,
              'the arrival instant is set only while decoded bytes are read',
            );
          },
        ),
        { numRuns: 25 },
      );
    });
  }

  it('stamps what each chunk decodes to with that chunk’s arrival, not the decoder’s answer', async () => {
    const { pieces, inner, d } = await gzipDetector();
    const fed: Array<{ before: number; after: number }> = [];
    for (const [i, piece] of pieces.entries()) {
      const before = performance.now();
      d.feed(Buffer.from(piece.bytes));
      fed.push({ before, after: performance.now() });
      await decodedThrough(inner, i); // the decoder answers before the next chunk comes
    }
    await closed(d);
    // Each piece's decoded bytes arrive in one or more outputs, each stamped with its own chunk's
    // arrival: taken inside feed, never when the decoder answered (which is later, after a wait).
    const stamps = [...new Set(inner.fed.map((f) => f.arrivedAt))];
    assert.equal(stamps.length, pieces.length, 'one arrival instant per coded chunk');
    for (const [i, stamp] of stamps.entries()) {
      const { before, after } = fed[i] as { before: number; after: number };
      assert.ok(stamp !== undefined && stamp >= before && stamp <= after, `chunk ${i}`);
    }
  });

  /**
   * Feeds the chat stream's six gzip pieces in one tick (the decoder is busy with the first while
   * the rest come) with the clock reading `clock[i]` as piece i arrives: how the waiting pieces are
   * grouped into writes depends on those instants alone, not on how fast this machine runs the loop.
   */
  async function burst(clock: readonly number[]) {
    const { pieces, inner, d } = await gzipDetector();
    let now = 0;
    const clockMock = mock.method(performance, 'now', () => now);
    try {
      for (const [i, piece] of pieces.entries()) {
        now = clock[i] as number;
        d.feed(Buffer.from(piece.bytes));
      }
    } finally {
      clockMock.mock.restore();
    }
    await closed(d);
    assert.equal(inner.text(), plainText);
    return [...new Set(inner.fed.map((f) => f.arrivedAt))];
  }

  it('a burst that arrives while the decoder is busy is one write, stamped with its last chunk’s arrival', async () => {
    const step = GROUP_MS / 5; // the five waiting pieces span less than GROUP_MS
    const stamps = await burst([100, 110, 110 + step, 110 + 2 * step, 110 + 3 * step, 110 + 4 * step]);
    assert.deepEqual(stamps, [100, 110 + 4 * step], 'the first chunk, then the five that came together');
  });

  it('chunks that wait for the decoder but arrive apart are separate writes, each stamped with its own last chunk', async () => {
    const gap = GROUP_MS * 4;
    const stamps = await burst([
      100,
      110,
      110 + GROUP_MS / 2,
      110 + gap,
      110 + gap + GROUP_MS / 2,
      110 + 2 * gap,
    ]);
    assert.deepEqual(
      stamps,
      [100, 110 + GROUP_MS / 2, 110 + gap + GROUP_MS / 2, 110 + 2 * gap],
      'never stamped before a chunk it holds arrived, nor later than GROUP_MS after it',
    );
  });

  it('after the first text, what arrives is decoded in one batch at the end, in order', async () => {
    const { pieces, sink, inner, d } = await gzipDetector();
    for (const [i, piece] of pieces.entries()) {
      d.feed(Buffer.from(piece.bytes));
      if (i < 3) await decodedThrough(inner, i); // each of the first three is decoded by itself
      if (i === 2) sink.firstTextAt = performance.now(); // the piece with the first text was read
    }
    assert.equal(new Set(inner.fed.map((f) => f.arrivedAt)).size, 3, 'the first three, each as it came');
    await closed(d);
    assert.equal(inner.text(), plainText);
    assert.equal(new Set(inner.fed.map((f) => f.arrivedAt)).size, 4, 'the other three in one write');
  });

  it('chunks that waited for the decoder when the first text came are read before those after it', async () => {
    const { pieces, sink, inner, d } = await gzipDetector();
    d.feed(Buffer.from((pieces[0] as Piece).bytes)); // decoding
    d.feed(Buffer.from((pieces[1] as Piece).bytes)); // waits for it
    sink.firstTextAt = performance.now();
    d.feed(Buffer.from((pieces[2] as Piece).bytes)); // after the first text: batched
    await new Promise((resolve) => setTimeout(resolve, 20)); // the first write is decoded meanwhile
    for (const piece of pieces.slice(3)) d.feed(Buffer.from(piece.bytes));
    await closed(d);
    assert.equal(inner.text(), plainText);
  });

  it('a corrupt body: reported undecodable by its code, read no further; nothing thrown', async () => {
    const sink = sinkOf();
    const inner = recordingDetector(sink);
    const d = new DecodingDetector('gzip', inner.detector, sink, () =>
      assert.fail('not a failure of lanewatch'),
    );
    const good = await codedPieces(chatPieces(), 'gzip');
    d.feed(Buffer.from((good[0] as Piece).bytes));
    d.feed(Buffer.from('this is not gzip, it is a CANARY'));
    d.feed(Buffer.from((good[1] as Piece).bytes));
    await closed(d);
    assert.equal(sink.reasons.length, 1);
    assert.match(sink.reasons[0] as string, /^Z_[A-Z_]+$/);
    assert.equal(inner.ends(), 0, 'a body that could not be read is not ended as if it were whole');
  });

  it('a body that outruns its decoder by more than MAX_DECODER_BACKLOG is read no further, not held', async () => {
    const sink = sinkOf();
    const inner = recordingDetector(sink);
    const d = new DecodingDetector('gzip', inner.detector, sink, () =>
      assert.fail('not a failure of lanewatch'),
    );
    // Incompressible bytes, coded: 6 MiB handed over in one go, faster than any decoder answers.
    const coded = zlib.gzipSync(randomBytes(6 * 1024 * 1024), { level: 1 });
    for (let at = 0; at < coded.length; at += 64 * 1024) d.feed(coded.subarray(at, at + 64 * 1024));
    assert.deepEqual(sink.reasons, ['backlog']);
    await closed(d);
    assert.equal(inner.ends(), 0);
    assert.ok(Buffer.concat(inner.fed.map((f) => f.bytes)).length < MAX_DECODER_BACKLOG * 2);
  });

  it('an exception of the format detector goes to onFailure, never out of a decoder callback', async () => {
    const failures: unknown[] = [];
    const sink = sinkOf();
    const d = new DecodingDetector(
      'br',
      {
        feed: () => {
          throw new Error('detector bug');
        },
        end: () => {},
      },
      sink,
      (e) => failures.push(e),
    );
    for (const piece of await codedPieces(chatPieces(), 'br')) d.feed(Buffer.from(piece.bytes));
    await closed(d);
    assert.equal(failures.length, 1, 'reported once; the detector is read no further');
  });

  it('closing a call that failed decodes what had arrived, and does not end the format detector', async () => {
    const { pieces, inner, d } = await gzipDetector();
    for (const piece of pieces.slice(0, 3)) d.feed(Buffer.from(piece.bytes));
    await closed(d, false);
    assert.equal(
      inner.text(),
      chatPieces()
        .slice(0, 3)
        .map((p) => p.bytes)
        .join(''),
    );
    assert.equal(inner.ends(), 0);
    d.feed(Buffer.from((pieces[3] as Piece).bytes)); // after the close: ignored, nothing thrown
  });
});

describe(`coded streams on Node ${process.version} (${path})`, () => {
  let h: Harness;
  let server: ScriptedServer;

  before(async () => {
    h = startHarness();
    // The first request of a process pays for loading undici's parser and zlib: warm both.
    const pieces = await codedPieces(chatPieces(), 'gzip');
    const warm = await startScriptedServer(() => ({ headers: { 'content-encoding': 'gzip' }, pieces }));
    await (await fetch(`${warm.url}/v1/chat/completions`, { method: 'POST', body })).text();
    await warm.close();
  });
  after(async () => {
    await h.shutdown();
  });
  beforeEach(async () => {
    await h.reset();
  });

  /** A server answering every call with the chat stream coded as `coding`. */
  async function codedServer(coding: TestCoding) {
    const coded = await codedPieces(chatPieces(), coding);
    const s = await startScriptedServer(() => ({
      headersAt: 20,
      headers: { 'content-encoding': codingHeader(coding) },
      pieces: coded,
    }));
    return Object.assign(s, { codedBytes: Buffer.concat(coded.map((p) => Buffer.from(p.bytes))) });
  }

  const oneSpan = async () => {
    await waitFor(() => h.finishedSpans().length > 0);
    const [span] = h.finishedSpans();
    assert.ok(span);
    return span;
  };

  for (const coding of CODINGS) {
    it(`${coding}: every milestone, the usage and the outcome, as an uncoded stream has them; the app reads the text`, async () => {
      const coded = await codedServer(coding);
      server = coded;
      try {
        const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
        const got = Buffer.from(await res.arrayBuffer());
        // What fetch gives the application is its own business: decoded — but Node 22's fetch
        // (undici 6) does not know zstd (nor asks for it) and hands it on as it came.
        assert.ok(
          got.toString() === plainText || (coding === 'zstd' && got.equals(coded.codedBytes)),
          'the application reads the body as fetch gives it without lanewatch',
        );
        const span = await oneSpan();
        for (const m of MILESTONES) assert.equal(typeof span.attributes[MILESTONE_SPAN_MS[m]], 'number', m);
        assert.equal(span.attributes['lanewatch.outcome'], 'ok');
        assert.equal(span.attributes['lanewatch.output.kind'], 'reasoning');
        assert.equal(span.attributes['lanewatch.chunks'], 6);
        assert.equal(span.attributes['gen_ai.usage.input_tokens'], 11);
        assert.equal(span.attributes['gen_ai.usage.output_tokens'], 7);
        assert.equal(span.attributes['lanewatch.format'], 'openai_chat');
        assert.ok(!(await exportedText(h)).includes(CANARY), 'no text of the stream anywhere');
      } finally {
        await server.close();
      }
    });
  }

  it('gzip: every milestone within 2 ms of the server sending it, over seven calls', async (t) => {
    const createdAt: number[] = [];
    const onCreate = () => createdAt.push(performance.now());
    diagnosticsChannel.subscribe('undici:request:create', onCreate);
    server = await codedServer('gzip');
    const errors: Record<string, number[]> = {};
    try {
      for (let i = 0; i < 7; i++) {
        await h.reset();
        await (await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body })).text();
        const span = await oneSpan();
        const t1 = createdAt.at(-1) as number;
        const sent = server.sent.map((s) => s - t1);
        const expected = {
          headers: (server.headersSentAt as number) - t1,
          first_chunk: sent[0],
          first_output: sent[1],
          first_text: sent[2],
          end: sent[5],
        };
        for (const m of MILESTONES) {
          const observed = span.attributes[MILESTONE_SPAN_MS[m]] as number;
          const at = expected[m] as number;
          assert.ok(observed >= at - 0.5, `${m} is not observed before it was sent (${observed} vs ${at})`);
          errors[m] = [...(errors[m] ?? []), observed - at];
        }
      }
      for (const line of assertMilestonesRecordedWithin(errors)) t.diagnostic(line);
    } finally {
      diagnosticsChannel.unsubscribe('undici:request:create', onCreate);
      await server.close();
    }
  });

  it('the openai client, which lets go at [DONE] as soon as its own decoder gives it that: ok, not cancelled', async () => {
    // The body ends 300 ms after [DONE]: the client cancels it first. Two decoders read the body,
    // fetch's and lanewatch's, on the thread pool; the call is judged only once lanewatch's has
    // caught up (see "closing a call that failed" above), whichever answers first.
    const coded = await codedPieces(chatPieces(), 'gzip');
    server = await startScriptedServer(() => ({
      headersAt: 20,
      headers: { 'content-encoding': 'gzip' },
      pieces: coded,
      endAt: 470,
    }));
    try {
      const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: CANARY, maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'gpt-test',
        stream: true,
        messages: [{ role: 'user', content: CANARY }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      assert.equal(text, `Hello ${CANARY} world`);
      const span = await oneSpan();
      assert.equal(span.attributes['lanewatch.outcome'], 'ok');
      assert.equal(typeof span.attributes['lanewatch.first_text_ms'], 'number');
      assert.ok((span.attributes['lanewatch.end_ms'] as number) < 400, 'end is when the client let go');
    } finally {
      await server.close();
    }
  });

  it('the undici package’s request(), which hands the application the coded bytes as they came: read all the same', async () => {
    server = await codedServer('br');
    try {
      const res = await undici8.request(`${server.url}/v1/chat/completions`, { method: 'POST', body });
      const raw = Buffer.from(await res.body.arrayBuffer());
      assert.equal(
        zlib.brotliDecompressSync(raw).toString(),
        plainText,
        'the application got the coded body untouched',
      );
      const span = await oneSpan();
      assert.equal(span.attributes['lanewatch.outcome'], 'ok');
      assert.equal(span.attributes['lanewatch.chunks'], 6);
      assert.equal(typeof span.attributes['lanewatch.first_text_ms'], 'number');
    } finally {
      await server.close();
    }
  });

  it('a coding lanewatch cannot read: headers and end, not judged truncated, and one warning that names it', async () => {
    server = await startScriptedServer(() => ({
      headers: { 'content-encoding': 'x-squash' },
      pieces: [{ at: 10, bytes: Buffer.from(`squashed ${CANARY}`) }],
    }));
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
        assert.equal(await res.text(), `squashed ${CANARY}`, 'fetch hands an unknown coding on as it came');
      }
      const spans = h.finishedSpans();
      assert.equal(spans.length, 2);
      for (const span of spans) {
        assert.equal(span.attributes['lanewatch.outcome'], 'ok');
        assert.equal(typeof span.attributes['lanewatch.headers_ms'], 'number');
        assert.equal(typeof span.attributes['lanewatch.end_ms'], 'number');
        assert.equal(span.attributes['lanewatch.first_chunk_ms'], undefined, 'nothing of the body was read');
      }
      const warnings = h.diagnostics.filter((d) => d.includes('content-encoding'));
      assert.equal(warnings.length, 1, 'said once');
      assert.match(warnings[0] as string, /"x-squash"/);
      assert.ok(!(await exportedText(h)).includes(CANARY));
    } finally {
      await server.close();
    }
  });

  it('a corrupt gzip body: the application gets fetch’s error, and lanewatch records the call without throwing', async () => {
    const good = await codedPieces(chatPieces(), 'gzip');
    server = await startScriptedServer(() => ({
      headers: { 'content-encoding': 'gzip' },
      pieces: [good[0] as Piece, { at: 60, bytes: Buffer.from(`not gzip ${CANARY}`) }, ...good.slice(1)],
    }));
    try {
      const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body });
      await assert.rejects(res.text(), 'fetch fails to decode it, as it would without lanewatch');
      const span = await oneSpan();
      assert.notEqual(
        span.attributes['lanewatch.outcome'],
        'truncated',
        'an unreadable body is not called truncated',
      );
      assert.equal(
        span.attributes['lanewatch.first_text_ms'],
        undefined,
        'nothing after the corruption is read',
      );
      assert.ok(!(await exportedText(h)).includes(CANARY));
      assert.deepEqual(
        h.diagnostics.filter((d) => d.includes('failed')),
        [],
        'a corrupt body is the server’s fault, not a failure of lanewatch',
      );
    } finally {
      await server.close();
    }
  });
});
