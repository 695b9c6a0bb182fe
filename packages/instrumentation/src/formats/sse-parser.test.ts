import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { createSseParser, type SseIssue } from './sse-parser.ts';
import { byteByByte, splitAt } from './testdata/harness.ts';

interface Seen {
  events: { type: string; data: string; id: string; incomplete: boolean }[];
  retries: number[];
  issues: SseIssue[];
}

function parse(chunks: Iterable<Uint8Array>, maxLineBytes?: number): Seen {
  const seen: Seen = { events: [], retries: [], issues: [] };
  const parser = createSseParser(
    {
      onEvent: (e) =>
        seen.events.push({
          type: e.type,
          data: e.buffer.toString('utf8', e.start, e.end),
          id: e.id,
          incomplete: e.incomplete,
        }),
      onRetry: (ms) => seen.retries.push(ms),
      onIssue: (issue) => seen.issues.push(issue),
    },
    { maxLineBytes },
  );
  for (const chunk of chunks) parser.feed(chunk);
  return seen;
}

const text = (s: string) => Buffer.from(s, 'utf8');
const message = (data: string, id = '') => ({ type: 'message', data, id, incomplete: false });

describe('createSseParser', () => {
  // The examples of WHATWG HTML §9.2.6.
  it('joins multi-line data with LF (the stock-ticker example)', () => {
    assert.deepEqual(parse([text('data: YHOO\ndata: +2\ndata: 10\n\n')]).events, [message('YHOO\n+2\n10')]);
  });

  it('ignores comments, keeps the last event ID, and removes only one leading space', () => {
    const stream =
      ': test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n';
    assert.deepEqual(parse([text(stream)]).events, [
      message('first event', '1'),
      message('second event', ''),
      message(' third event', ''),
    ]);
  });

  it('dispatches `data` with no value as empty data, and never an event left unfinished', () => {
    assert.deepEqual(parse([text('data\n\ndata\ndata\n\ndata:')]).events, [message(''), message('\n')]);
  });

  it('reads `data:x` and `data: x` alike', () => {
    assert.deepEqual(parse([text('data:test\n\ndata: test\n\n')]).events, [message('test'), message('test')]);
  });

  it('does not dispatch an event without data, and forgets its type (spec: empty data buffer)', () => {
    const seen = parse([text('event: ping\n\nevent: keepalive\nid: 7\n\ndata: x\n\n')]);
    assert.deepEqual(seen.events, [message('x', '7')]);
  });

  it('takes the type from `event`, `message` when it is absent or empty, and resets it per event', () => {
    const seen = parse([text('event: add\ndata: 1\n\nevent:\ndata: 2\n\ndata: 3\n\n')]);
    assert.deepEqual(
      seen.events.map((e) => e.type),
      ['add', 'message', 'message'],
    );
  });

  it('names every event as its `event` line decodes, however many names a stream uses and whatever they are (property)', () => {
    // More names than a parser keeps, names that are prefixes of each other, names over its length
    // limit, UTF-8 names and a byte that is not UTF-8: each event's type is its line, decoded.
    const names: Buffer[] = [
      ...Array.from({ length: 20 }, (_, i) => text(`name_${i}`)),
      text('a'),
      text('ab'),
      text('abc'),
      text('content_block_delta'),
      text('content_block_deltA'),
      text('x'.repeat(64)),
      text('x'.repeat(65)),
      text('événement'),
      Buffer.from([0x61, 0x80, 0x62]),
      // `é` is one character from two bytes; the lone byte 0xe9 (its code point) is not UTF-8.
      text('é'),
      Buffer.from([0xe9]),
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(names.length - 1), { minLength: 1, maxLength: 60 }), (picks) => {
        const body = Buffer.concat(
          picks.flatMap((i) => [text('event: '), names[i] as Buffer, text('\ndata: {}\n\n')]),
        );
        assert.deepEqual(
          parse([body]).events.map((e) => e.type),
          picks.map((i) => (names[i] as Buffer).toString('utf8')),
        );
      }),
    );
  });

  it('keeps the last event ID across events and ignores an ID containing NUL', () => {
    const seen = parse([text('id: 5\ndata: a\n\ndata: b\n\nid: 6\u0000\ndata: c\n\n')]);
    assert.deepEqual(
      seen.events.map((e) => e.id),
      ['5', '5', '5'],
    );
  });

  it('reports `retry` only when it is all ASCII digits', () => {
    assert.deepEqual(
      parse([text('retry: 3000\nretry: 1.5\nretry: x\nretry:\nretry: 42\n\n')]).retries,
      [3000, 42],
    );
  });

  it('ignores unknown fields and a field named by the whole line', () => {
    assert.deepEqual(parse([text('foo: bar\nDATA: no\ndata\n\n')]).events, [message('')]);
  });

  it('skips OpenRouter heartbeat comments', () => {
    assert.deepEqual(
      parse([text(': OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: {}\n\n')]).events,
      [message('{}')],
    );
  });

  it('reads CR, LF and CRLF endings, including a CRLF split between chunks', () => {
    const expected = [message('a\nb'), message('c')];
    assert.deepEqual(parse([text('data: a\rdata: b\r\rdata: c\r\r')]).events, expected);
    assert.deepEqual(
      parse([text('data: a\r'), text('\ndata: b\r'), text('\n\r'), text('\ndata: c\r\n\r\n')]).events,
      expected,
    );
  });

  it('strips a leading BOM, even one byte at a time', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text('data: x\n\n')]);
    assert.deepEqual(parse(byteByByte(body)).events, [message('x')]);
  });

  it('decodes a code point split across chunks', () => {
    assert.deepEqual(parse(byteByByte(text('event: wave🌊\ndata: crème 🌊\n\n'))).events, [
      { type: 'wave🌊', data: 'crème 🌊', id: '', incomplete: false },
    ]);
  });

  it('drops the pending event on reset (end of stream)', () => {
    const seen: string[] = [];
    const parser = createSseParser({ onEvent: (e) => seen.push(e.buffer.toString('utf8', e.start, e.end)) });
    parser.feed(text('data: half\n'));
    parser.reset();
    parser.feed(text('\ndata: next\n\n'));
    assert.deepEqual(seen, ['next']);
  });

  it('owns the data of an event that waits for its blank line in a later chunk', () => {
    const seen: string[] = [];
    const parser = createSseParser({ onEvent: (e) => seen.push(e.buffer.toString('utf8', e.start, e.end)) });
    const chunk = text('data: one\ndata: two\n');
    parser.feed(chunk);
    chunk.fill(0x3f);
    parser.feed(text('\n'));
    assert.deepEqual(seen, ['one\ntwo']);
  });

  it('keeps no reference to a chunk of the application once feed returns', async () => {
    // The chunk may be a view into a whole socket read: a parser that kept it (its reused event
    // object still pointing at the last event's bytes) kept that alive while the call lived on,
    // held for batch recording — peak RSS +28 % through the openai client on Node 22.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const parser = createSseParser({ onEvent: () => {} });
    const feed = () => {
      const chunk = new TextEncoder().encode('data: {"choices":[]}\n\ndata: [DONE]\n\n');
      parser.feed(chunk);
      return new WeakRef(chunk.buffer);
    };
    const bytes = feed();
    for (let i = 0; i < 3 && bytes.deref() !== undefined; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    assert.equal(bytes.deref(), undefined, 'the chunk was collected while the parser lives on');
    parser.feed(text('data: later\n\n')); // and the parser still works
  });

  it('dispatches an event whose data line was over the cap as incomplete, and reads on', () => {
    const long = 'x'.repeat(100);
    const seen = parse([text(`data: ${long}\n\n: ${long}\n\ndata: ok\n\n`)], 32);
    assert.deepEqual(seen.events, [{ type: 'message', data: '', id: '', incomplete: true }, message('ok')]);
    assert.deepEqual(
      seen.issues.map((i) => i.type),
      ['line-too-long', 'line-too-long'],
    );
  });

  it('drops the data of an event whose lines add up to more than the cap', () => {
    const seen = parse([text(`${'data: 0123456789\n'.repeat(5)}\ndata: ok\n\n`)], 32);
    assert.deepEqual(seen.events, [{ type: 'message', data: '', id: '', incomplete: true }, message('ok')]);
    assert.deepEqual(seen.issues, [{ type: 'event-too-long', bytes: 32 + 11 }]);
  });

  it('gives the same events however the stream is cut (property)', () => {
    const value = fc.string({ unit: fc.constantFrom('a', 'ü', '🌊', ' ', ':', '{'), maxLength: 8 });
    const field = fc.oneof(
      value.map((v) => `data: ${v}`),
      value.map((v) => `event: ${v}`),
      value.map((v) => `: ${v}`),
      value.map((v) => `id: ${v}`),
      fc.constant(''),
    );
    const ending = fc.constantFrom('\n', '\r\n', '\r');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(field, ending), { maxLength: 16 }),
        fc.array(fc.nat(300)),
        (lines, cuts) => {
          const body = text(lines.map(([line, end]) => line + end).join(''));
          assert.deepEqual(parse(splitAt(body, cuts)), parse([body]));
        },
      ),
    );
  });
});
