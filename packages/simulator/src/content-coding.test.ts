import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { negotiateCoding } from './content-coding.ts';
import { type ProviderServer, startProviderServer } from './provider-server.ts';
import type { Script, StreamScript } from './script.ts';

const CHAT = '/v1/chat/completions';
const STREAM_BODY = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });

/** Text pieces 40 ms apart, so that each arrives in a read of its own. */
const script = (): StreamScript => ({
  kind: 'stream',
  headersDelayMs: 5,
  pieces: [
    { kind: 'start', delayMs: 10 },
    { kind: 'text', delayMs: 40, text: 'one ' },
    { kind: 'text', delayMs: 40, text: 'two ' },
    { kind: 'text', delayMs: 40, text: 'three' },
    { kind: 'finish', delayMs: 0, reason: 'stop' },
    { kind: 'done', delayMs: 0 },
  ],
});

interface Seen {
  headers: IncomingHttpHeaders;
  /** Each raw read, with what a decoder had made of the body up to it (decoded as it arrived). */
  reads: Array<{ at: number; decodedSoFar: string }>;
  body: string;
}

/** Posts with `accept-encoding` and decodes the body read by read, as a streaming client does. */
function post(base: string, acceptEncoding: string | undefined, body = STREAM_BODY): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${CHAT}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
      },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      const coding = res.headers['content-encoding'];
      const decoder =
        coding === 'br'
          ? zlib.createBrotliDecompress()
          : coding === 'gzip'
            ? zlib.createGunzip()
            : coding === 'deflate'
              ? zlib.createInflate()
              : undefined;
      const seen: Seen = { headers: res.headers, reads: [], body: '' };
      let decoded = '';
      decoder?.on('data', (chunk: Buffer) => {
        decoded += chunk.toString();
      });
      res.on('data', (chunk: Buffer) => {
        const at = performance.now();
        if (decoder === undefined) {
          decoded += chunk.toString();
          seen.reads.push({ at, decodedSoFar: decoded });
          return;
        }
        decoder.write(chunk, () => seen.reads.push({ at, decodedSoFar: decoded }));
      });
      res.once('end', () => {
        if (decoder === undefined) {
          seen.body = decoded;
          resolve(seen);
          return;
        }
        decoder.end(() => {
          seen.body = decoded;
          resolve(seen);
        });
      });
    });
    req.end(body);
  });
}

describe('negotiateCoding: what a compressing gateway answers an Accept-Encoding with', () => {
  test('br first, then gzip, then deflate; q=0 refuses; * allows any; none without the header', () => {
    const cases: Array<[string | undefined, string | undefined]> = [
      [undefined, undefined],
      ['identity', undefined],
      ['br, gzip, deflate', 'br'], // fetch over https
      ['gzip, deflate', 'gzip'], // fetch over http
      ['deflate', 'deflate'],
      ['x-gzip', 'gzip'],
      ['br;q=0, gzip;q=0.5', 'gzip'],
      ['*', 'br'],
      ['*, br;q=0', 'gzip'],
      ['zstd', undefined],
    ];
    for (const [header, expected] of cases) assert.equal(negotiateCoding(header), expected, String(header));
  });
});

describe('provider server with compress: streams coded as a gateway sends them', () => {
  let plain: ProviderServer;
  let coded: ProviderServer;
  before(async () => {
    plain = await startProviderServer({ respond: () => script() });
    coded = await startProviderServer({ respond: (): Script => script(), compress: true });
  });
  after(async () => {
    await plain.close();
    await coded.close();
  });

  for (const [accept, coding] of [
    ['br, gzip, deflate', 'br'],
    ['gzip, deflate', 'gzip'],
    ['deflate', 'deflate'],
  ] as const) {
    test(`accept-encoding "${accept}": ${coding}, decoding to the uncompressed body, each piece readable when it arrives`, async () => {
      const expected = await post(plain.url, accept);
      const seen = await post(coded.url, accept);
      assert.equal(expected.headers['content-encoding'], undefined, 'without compress, never compressed');
      assert.equal(seen.headers['content-encoding'], coding);
      assert.equal(seen.headers.vary, 'accept-encoding');
      assert.equal(seen.headers['content-type'], expected.headers['content-type']);
      assert.equal(coded.sends.at(-1)?.contentEncoding, coding);
      // The same events; ids and timestamps differ from server to server, so compare their shape.
      const shape = (body: string) => body.replace(/"(id|created)":("[^"]*"|\d+)/g, '"$1":_');
      assert.equal(shape(seen.body), shape(expected.body));
      // Each text piece could be read on the read that brought it, not at the end of the body.
      const record = coded.sends.at(-1);
      assert.ok(record);
      for (const [i, word] of ['one ', 'two ', 'three'].entries()) {
        const sent = record.pieces.filter((p) => p.kind === 'text')[i]?.sentAt as number;
        const read = seen.reads.find((r) => r.decodedSoFar.includes(`"content":"${word}"`));
        assert.ok(read, `${word} was decoded`);
        assert.ok(
          read.at - sent < 30,
          `${word} decoded from the read that brought it (${(read.at - sent).toFixed(1)} ms)`,
        );
      }
      assert.ok(
        (record.pieces.find((p) => p.kind === 'text')?.bytes as number) > 0,
        'piece sizes are the events’ own',
      );
    });
  }

  test('a request that accepts no coding gets the stream as it is', async () => {
    const seen = await post(coded.url, undefined);
    assert.equal(seen.headers['content-encoding'], undefined);
    assert.equal(coded.sends.at(-1)?.contentEncoding, undefined);
    assert.match(seen.body, /data: \[DONE\]/);
  });

  test('a non-streaming answer is compressed whole, and decodes to the answer sent as it is', async () => {
    const answer = JSON.stringify({ ...JSON.parse(STREAM_BODY), stream: false });
    const expected = await post(plain.url, 'gzip', answer);
    const seen = await post(coded.url, 'gzip', answer);
    assert.equal(expected.headers['content-encoding'], undefined);
    assert.equal(seen.headers['content-encoding'], 'gzip');
    assert.equal(seen.headers.vary, 'accept-encoding');
    assert.equal(coded.sends.at(-1)?.contentEncoding, 'gzip');
    assert.equal(seen.headers['content-type'], expected.headers['content-type']);
    const shape = (body: string) => body.replace(/"(id|created)":("[^"]*"|\d+)/g, '"$1":_');
    assert.equal(shape(seen.body), shape(expected.body));
    assert.match(seen.body, /"object":"chat\.completion"/);
  });

  test('an error reply is sent whole and uncompressed', async () => {
    const failing = await startProviderServer({
      respond: () => ({ kind: 'error', status: 429, headersDelayMs: 1 }),
      compress: true,
    });
    try {
      const seen = await post(failing.url, 'gzip');
      assert.equal(seen.headers['content-encoding'], undefined);
      assert.match(seen.body, /rate_limit/);
    } finally {
      await failing.close();
    }
  });
});
