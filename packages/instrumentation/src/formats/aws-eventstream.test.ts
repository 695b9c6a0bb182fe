import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import type { MessageHeaders } from '@smithy/core/event-streams';
import { EventStreamCodec, Int64 } from '@smithy/core/event-streams';
import fc from 'fast-check';
import { createEventStreamReader, type EventStreamIssueType } from './aws-eventstream.ts';
import { byteByByte, splitAt } from './testdata/harness.ts';

// The reader against messages encoded by AWS's own codec (CRCs, every header type).

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

function message(headers: MessageHeaders, payload: string | Buffer): Buffer {
  return Buffer.from(codec.encode({ headers, body: Buffer.from(payload) }));
}

const str = (value: string) => ({ type: 'string' as const, value });

interface Read {
  messages: string[];
  issues: string[];
}

function read(chunks: Iterable<Uint8Array>, maxMessageBytes?: number): Read {
  const out: Read = { messages: [], issues: [] };
  const reader = createEventStreamReader(
    {
      onMessage(m) {
        const payload = m.buffer.toString('utf8', m.start, m.end);
        out.messages.push(`${m.messageType}|${m.eventType}|${m.exceptionType}|${payload}`);
      },
      onIssue(issue: { type: EventStreamIssueType; bytes: number }) {
        out.issues.push(`${issue.type} ${issue.bytes}`);
      },
    },
    { maxMessageBytes },
  );
  for (const chunk of chunks) reader.feed(chunk);
  reader.reset();
  return out;
}

const EVENT = { ':message-type': str('event'), ':content-type': str('application/json') };

describe('createEventStreamReader', () => {
  it('reads the type headers and the payload of each message, past headers of every other type', () => {
    const body = Buffer.concat([
      message(
        {
          flag: { type: 'boolean', value: true },
          off: { type: 'boolean', value: false },
          small: { type: 'byte', value: 7 },
          short: { type: 'short', value: 300 },
          int: { type: 'integer', value: 70000 },
          long: { type: 'long', value: Int64.fromNumber(5_000_000_000) },
          blob: { type: 'binary', value: Buffer.from([0, 1, 2, 0x3a]) },
          when: { type: 'timestamp', value: new Date(1_764_000_000_000) },
          id: { type: 'uuid', value: '6ba7b810-9dad-11d1-80b4-00c04fd430c8' },
          ...EVENT,
          ':event-type': str('chunk'),
        },
        '{"bytes":"eyJ0eXBlIjoicGluZyJ9"}',
      ),
      message(
        { ':message-type': str('exception'), ':exception-type': str('throttlingException') },
        '{"message":"slow down"}',
      ),
      message({ ':message-type': str('error'), ':error-code': str('InternalFailure') }, ''),
      message({}, 'no headers'),
    ]);
    const expected = [
      'event|chunk||{"bytes":"eyJ0eXBlIjoicGluZyJ9"}',
      'exception||throttlingException|{"message":"slow down"}',
      'error||InternalFailure|',
      '|||no headers',
    ];
    assert.deepEqual(read([body]).messages, expected);
    assert.deepEqual(read(byteByByte(body)).messages, expected);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: body.length - 1 }), { maxLength: 20 }), (offsets) => {
        assert.deepEqual(read(splitAt(body, offsets)), { messages: expected, issues: [] });
      }),
      { numRuns: 200 },
    );
  });

  it('hands on a whole message as a range of the chunk itself, copying nothing', () => {
    const body = message({ ...EVENT, ':event-type': str('chunk') }, '{"bytes":""}');
    let seen: Buffer | undefined;
    const reader = createEventStreamReader({
      onMessage(m) {
        seen = m.buffer;
      },
    });
    reader.feed(body);
    assert.equal(seen, body);
  });

  it('skips a message over the cap unread, then reads on', () => {
    const big = message({ ...EVENT, ':event-type': str('chunk') }, 'x'.repeat(1000));
    const next = message({ ...EVENT, ':event-type': str('metadata') }, '{}');
    const body = Buffer.concat([big, next]);
    const expected = { messages: ['event|metadata||{}'], issues: [`message-too-long ${big.length}`] };
    assert.deepEqual(read([body], 500), expected);
    assert.deepEqual(read(byteByByte(body), 500), expected);
    assert.deepEqual(read(splitAt(body, [5, 13, 700, big.length + 3]), 500), expected);
  });

  it('stops at a prelude that does not check out: not an event stream, or its framing lost', () => {
    const good = message({ ...EVENT, ':event-type': str('chunk') }, '{}');
    const json = Buffer.from('{"message":"this is a JSON error body, not an event stream"}');
    assert.deepEqual(read([json]), { messages: [], issues: [`not-an-event-stream ${json.length}`] });
    const corrupt = Buffer.from(good);
    corrupt[3] = (corrupt[3] as number) + 1; // the total length, so the prelude CRC fails
    const body = Buffer.concat([good, corrupt, good]);
    assert.deepEqual(read([body]).messages, ['event|chunk||{}']);
    assert.deepEqual(read(byteByByte(body)), {
      messages: ['event|chunk||{}'],
      issues: ['not-an-event-stream 12'],
    });
    // Lengths that cannot be a message are refused before any CRC is read.
    const tooShort = Buffer.alloc(16);
    tooShort.writeUInt32BE(8, 0);
    assert.deepEqual(read([tooShort]).issues, ['not-an-event-stream 16']);
  });

  it('does not hand on a last message cut short; reset starts a new stream', () => {
    const whole = message({ ...EVENT, ':event-type': str('chunk') }, '{"a":1}');
    const messages: string[] = [];
    const reader = createEventStreamReader({
      onMessage: (m) => messages.push(m.buffer.toString('utf8', m.start, m.end)),
    });
    reader.feed(whole.subarray(0, whole.length - 2));
    reader.reset();
    reader.feed(whole);
    assert.deepEqual(messages, ['{"a":1}']);
  });

  it('keeps no view of a chunk it was given once a held message completes', () => {
    const whole = message({ ...EVENT, ':event-type': str('chunk') }, '{"held":true}');
    const messages: string[] = [];
    const reader = createEventStreamReader({
      onMessage: (m) => messages.push(m.buffer.toString('utf8', m.start, m.end)),
    });
    const scratch = Buffer.alloc(whole.length);
    for (const [from, to] of [
      [0, 5],
      [5, 20],
      [20, whole.length],
    ] as const) {
      whole.copy(scratch, 0, from, to);
      reader.feed(scratch.subarray(0, to - from));
      scratch.fill(0xff);
    }
    assert.deepEqual(messages, ['{"held":true}']);
  });
});
