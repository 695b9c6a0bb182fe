import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CallSeen,
  digestChunk,
  EMPTY_DIGEST,
  MAX_REMEMBERED,
  REPEAT_WINDOW_MS,
  RepeatedCalls,
} from './repeated-calls.ts';

const digestOf = (...chunks: Uint8Array[]) => chunks.reduce(digestChunk, EMPTY_DIGEST);

/** A chat request body of about `size` bytes, its message `text`. */
function chatBody(text: string, size: number): Buffer {
  const head = `{"model":"gpt-x","stream":true,"messages":[{"role":"system","content":"${'s'.repeat(size / 2)}"},{"role":"user","content":"`;
  const tail = `"}],"tools":[{"type":"function","function":{"name":"lookup"}}]}`;
  return Buffer.from(
    head + text + 'u'.repeat(Math.max(0, size - head.length - tail.length - text.length)) + tail,
  );
}

describe('digestChunk', () => {
  /** `bytes` as undici may hand them over: a view into a larger, pooled buffer with other bytes around. */
  const inPool = (bytes: Uint8Array, fill: number) => {
    const pool = Buffer.alloc(bytes.length + 4_096, fill);
    pool.set(bytes, 2_048);
    return pool.subarray(2_048, 2_048 + bytes.length);
  };

  it('digests the same bytes alike, however large, wherever they lie in memory', () => {
    for (const size of [0, 10, 1024, 1025, 5_000, 200_000, 2_000_000]) {
      const a = chatBody('hello', size);
      assert.equal(digestOf(inPool(a, 0x00)), digestOf(inPool(a, 0xff)), `${size} bytes`);
    }
  });

  it('tells bodies apart by any byte of a small one, and by length, ends and samples of a large one', () => {
    for (const size of [200, 1024]) {
      const a = chatBody('hello', size);
      for (let i = 0; i < a.length; i += 7) {
        const b = Buffer.from(a);
        b[i] = (b[i] as number) ^ 1;
        assert.notEqual(digestOf(a), digestOf(b), `${size} bytes, byte ${i} changed`);
      }
    }
    const large = chatBody('hello', 100_000);
    const changed = (i: number) => {
      const b = Buffer.from(large);
      b[i] = (b[i] as number) ^ 1;
      return digestOf(b);
    };
    assert.notEqual(digestOf(large), changed(0), 'its first byte');
    assert.notEqual(digestOf(large), changed(large.length - 1), 'its last byte');
    assert.notEqual(digestOf(large), changed(511), 'the end of its first 512 bytes');
    assert.notEqual(digestOf(large), digestOf(chatBody('hello!', 100_001)), 'one byte longer');
    // Two turns of one conversation of the same length: a message of 600 bytes anywhere in the
    // middle differs, which the samples of a body this size (~500 bytes apart) read.
    for (let at = 1_000; at < large.length - 3_000; at += 997) {
      const b = Buffer.from(large);
      b.fill('x', at, at + 600);
      assert.notEqual(digestOf(large), digestOf(b), `a message at byte ${at}`);
    }
  });

  it('reads a body chunk by chunk, in order', () => {
    const a = chatBody('hi', 4_000);
    assert.equal(
      digestOf(inPool(a.subarray(0, 100), 1), inPool(a.subarray(100), 2)),
      digestOf(inPool(a.subarray(0, 100), 3), inPool(a.subarray(100), 4)),
    );
    assert.notEqual(
      digestOf(a.subarray(0, 100), a.subarray(100)),
      digestOf(a.subarray(100), a.subarray(0, 100)),
    );
  });
});

describe('RepeatedCalls', () => {
  const call = (over: Partial<CallSeen> = {}): CallSeen => ({
    endpoint: 'https://api.example.test/v1/chat/completions',
    sentBytes: 900,
    digest: 42,
    t1: 0,
    endAt: 100,
    ended: 'failed',
    ...over,
  });

  it('numbers each repeat of a call that did not succeed one more, until one succeeds', () => {
    const r = new RepeatedCalls();
    assert.equal(r.attemptOf(call({ t1: 0, endAt: 100 }), undefined), 1);
    assert.equal(r.attemptOf(call({ t1: 2_100, endAt: 2_200 }), undefined), 2);
    assert.equal(r.attemptOf(call({ t1: 6_200, endAt: 6_300 }), undefined), 3);
    assert.equal(r.attemptOf(call({ t1: 6_400, endAt: 9_000, ended: 'ok' }), undefined), 4);
    assert.equal(r.size, 0, 'the success ends the series');
    assert.equal(
      r.attemptOf(call({ t1: 9_100, endAt: 9_200 }), undefined),
      1,
      'the same request again is a new call',
    );
  });

  it('takes a call that began before the failed one ended for another call, not its retry', () => {
    const r = new RepeatedCalls();
    r.attemptOf(call({ t1: 0, endAt: 500 }), undefined);
    assert.equal(r.attemptOf(call({ t1: 400, endAt: 900, ended: 'ok' }), undefined), 1);
    assert.equal(r.size, 1, 'the failed call is still remembered');
    assert.equal(r.attemptOf(call({ t1: 1_000, endAt: 1_500, ended: 'ok' }), undefined), 2);
  });

  it('needs the same endpoint, the same body and the window', () => {
    const r = new RepeatedCalls();
    r.attemptOf(call(), undefined);
    assert.equal(
      r.attemptOf(call({ t1: 200, endpoint: 'https://other.test/v1/chat/completions' }), undefined),
      1,
    );
    assert.equal(r.attemptOf(call({ t1: 200, sentBytes: 901 }), undefined), 1);
    assert.equal(r.attemptOf(call({ t1: 200, digest: 43 }), undefined), 1);
    assert.equal(r.attemptOf(call({ t1: 100 + REPEAT_WINDOW_MS, ended: 'ok' }), undefined), 2);
    const late = new RepeatedCalls();
    late.attemptOf(call(), undefined);
    assert.equal(late.attemptOf(call({ t1: 100 + REPEAT_WINDOW_MS + 1, ended: 'ok' }), undefined), 1);
  });

  it('takes a cancelled call for no failure, though it may be a retry', () => {
    const r = new RepeatedCalls();
    r.attemptOf(call({ ended: 'cancelled' }), undefined);
    assert.equal(r.size, 0, 'SDKs do not retry an abort');
    r.attemptOf(call({ t1: 200, endAt: 300 }), undefined);
    assert.equal(r.attemptOf(call({ t1: 400, endAt: 500, ended: 'cancelled' }), undefined), 2);
    assert.equal(
      r.attemptOf(call({ t1: 600, endAt: 700, ended: 'ok' }), undefined),
      2,
      'the failure is still what it repeats',
    );
  });

  it('never takes a call without a body for a retry', () => {
    const r = new RepeatedCalls();
    r.attemptOf(call({ sentBytes: 0 }), undefined);
    assert.equal(r.attemptOf(call({ sentBytes: 0, t1: 200 }), undefined), 1);
    assert.equal(r.size, 0);
  });

  it('lets what the call said win when it says more: an SDK counting its own retries', () => {
    const r = new RepeatedCalls();
    assert.equal(r.attemptOf(call(), 1), 1);
    assert.equal(
      r.attemptOf(call({ t1: 200, endAt: 300 }), 2),
      2,
      'the openai client retrying: header and repeat agree',
    );
    assert.equal(
      r.attemptOf(call({ t1: 400, endAt: 500 }), 1),
      3,
      'LangChain retrying through a client that says 1',
    );
    assert.equal(r.attemptOf(call({ t1: 600, endAt: 700 }), 7), 7);
  });

  it(`remembers at most ${MAX_REMEMBERED} calls, and none past the window`, () => {
    const r = new RepeatedCalls();
    for (let i = 0; i < MAX_REMEMBERED + 10; i++)
      r.attemptOf(call({ digest: i, t1: i, endAt: i + 1 }), undefined);
    assert.equal(r.size, MAX_REMEMBERED);
    assert.equal(
      r.attemptOf(call({ digest: 0, t1: 5_000, ended: 'ok' }), undefined),
      1,
      'the oldest went first',
    );
    assert.equal(r.attemptOf(call({ digest: MAX_REMEMBERED + 9, t1: 5_000, ended: 'ok' }), undefined), 2);
    r.attemptOf(call({ digest: -1, t1: 10 * REPEAT_WINDOW_MS, endAt: 10 * REPEAT_WINDOW_MS + 1 }), undefined);
    assert.equal(r.size, 1, 'a failure forgets every one past the window');
  });
});
