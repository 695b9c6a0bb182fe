import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { type ClientHttp2Session, connect as http2Connect, constants as http2Constants } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { bedrockInvokeWriter } from './bedrock-invoke-writer.ts';
import { runAt } from './due-timer.ts';
import { exampleScript } from './example-script.ts';
import { LOCALHOST_TLS } from './localhost-tls.ts';
import { sentMilestones } from './milestones.ts';
import { type ProviderServer, type RequestRecord, startProviderServer } from './provider-server.ts';
import { type Piece, type Script, type StreamScript, scheduleOf } from './script.ts';

/** What a plain node:http client saw: each `data` event is one read of the de-chunked body. */
interface Observed {
  status: number;
  headers: IncomingHttpHeaders;
  headersAt: number;
  reads: Array<{ at: number; text: string }>;
  endedAt: number;
  error: (Error & { code?: string }) | undefined;
}

/** An observation before anything arrived. */
const nothingObserved = (): Observed => ({
  status: 0,
  headers: {},
  headersAt: Number.NaN,
  reads: [],
  endedAt: Number.NaN,
  error: undefined,
});

function post(base: string, path: string, body: string, options: { abortAfterMs?: number } = {}) {
  return new Promise<Observed>((resolve) => {
    const observed = nothingObserved();
    const finish = (error?: Error) => {
      observed.endedAt = performance.now();
      observed.error = error;
      resolve(observed);
    };
    const req = httpRequest(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    if (options.abortAfterMs !== undefined) {
      const timer = setTimeout(
        () => req.destroy(Object.assign(new Error('aborted by test'), { code: 'ABORTED' })),
        options.abortAfterMs,
      );
      req.once('close', () => clearTimeout(timer));
    }
    req.once('response', (res) => {
      observed.headersAt = performance.now();
      observed.status = res.statusCode ?? 0;
      observed.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (text: string) => observed.reads.push({ at: performance.now(), text }));
      res.once('end', () => finish());
      res.once('error', (error) => finish(error));
    });
    req.once('error', (error) => {
      if (Number.isNaN(observed.endedAt)) finish(error);
    });
    req.end(body);
  });
}

const CHAT = '/v1/chat/completions';
const STREAM_BODY = JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] });

function textScript(headersDelayMs: number, delays: readonly number[], ending: Piece[] = []): StreamScript {
  return {
    kind: 'stream',
    headersDelayMs,
    pieces: [
      { kind: 'start', delayMs: 0 },
      ...delays.map((delayMs, index): Piece => ({ kind: 'text', delayMs, text: `w${index} ` })),
      ...ending,
    ],
  };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

describe('provider server', () => {
  let server: ProviderServer;
  let respond: (index: number) => Script = () => exampleScript();
  before(async () => {
    server = await startProviderServer({ respond: (request) => respond(request.index) });
  });
  after(() => server.close());

  const record = (index: number): RequestRecord => {
    const found = server.sends.find((sent) => sent.request.index === index);
    assert.ok(found, `request ${index} was recorded`);
    return found;
  };

  test('listens on 127.0.0.1 and answers unknown paths with 404, unrecorded', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const before = server.sends.length;
    const observed = await post(server.url, '/v1/embeddings', '{}');
    assert.equal(observed.status, 404);
    assert.equal(server.sends.length, before);
  });

  test('each piece is its own write: pieces sent apart are never read together', async (t) => {
    respond = () =>
      textScript(
        5,
        Array.from({ length: 20 }, () => 8),
      );
    const observed = await post(server.url, CHAT, STREAM_BODY);
    const sent = server.sends.at(-1);
    assert.ok(sent);
    const written = sent.pieces.filter((piece) => piece.bytes > 0);
    // Assign each read the pieces whose bytes it carries (reads and pieces are both in order).
    const delays: number[] = [];
    let piece = 0;
    let offset = 0;
    for (const read of observed.reads) {
      const together: typeof written = [];
      let left = Buffer.byteLength(read.text);
      while (left > 0) {
        const current = written[piece];
        assert.ok(current, 'more bytes read than written');
        const take = Math.min(left, current.bytes - offset);
        left -= take;
        offset += take;
        if (together.at(-1) !== current) together.push(current);
        if (offset === current.bytes) {
          piece++;
          offset = 0;
        }
      }
      // On one clock: nothing is read before it was sent …
      for (const part of together) assert.ok(read.at >= part.sentAt, 'read after send');
      const first = together[0];
      if (first) delays.push(read.at - first.sentAt);
      // … and two pieces share a read only when they left back to back (a stalled loop), never
      // because the server held one back for the next.
      const last = together.at(-1);
      if (first && last) assert.ok(last.sentAt - first.sentAt < 4, 'pieces sent 8 ms apart were batched');
    }
    assert.equal(piece, written.length, 'every written byte was read');
    t.diagnostic(`client read delay after send: ${delays.map((delay) => delay.toFixed(2)).join(' ')} ms`);
    assert.ok(observed.headersAt >= (sent.headersSentAt ?? Number.POSITIVE_INFINITY));
  });

  test('pieces due at the same moment are each their own chunk of the chunked encoding', async () => {
    // undici hands the client one body chunk per chunk of the encoding: what the bench's workload
    // is made of. Node 26 merges the writes of one tick into one chunk unless the socket is corked.
    respond = () =>
      textScript(
        0,
        Array.from({ length: 20 }, () => 0),
      );
    const socket = connect(server.port, '127.0.0.1');
    socket.end(
      `POST ${CHAT} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(STREAM_BODY)}\r\nconnection: close\r\n\r\n${STREAM_BODY}`,
    );
    const parts: Buffer[] = [];
    for await (const part of socket) parts.push(part as Buffer);
    const raw = Buffer.concat(parts).toString('latin1');
    const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
    const chunkSizes: number[] = [];
    for (let at = 0; at < body.length; ) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = Number.parseInt(body.slice(at, lineEnd), 16);
      if (size === 0) break;
      chunkSizes.push(size);
      at = lineEnd + 2 + size + 2;
    }
    const sent = server.sends.at(-1);
    assert.ok(sent);
    const written = sent.pieces.filter((piece) => piece.bytes > 0).map((piece) => piece.bytes);
    assert.equal(written.length, 21, 'the role event and 20 text events were written');
    assert.deepEqual(chunkSizes, written);
  });

  test('pieces are written on schedule: median ≤ 2 ms late, max ≤ 15 ms, beyond what the loop itself allows', async (t) => {
    // Irregular gaps from 0 to 23 ms, 4 streams at once: 4 × 63 writes. A loaded machine delays the
    // whole event loop, so the same run also keeps a control: one bare timer per write, set for the
    // same due time the moment the request arrives. Only lateness beyond the control's is the
    // simulator's: the bounds are 2 ms (median) and 15 ms (max), or the control's own plus 1 and 5 ms.
    const delays = Array.from({ length: 60 }, (_, index) => (index * 7) % 24);
    const script = textScript(10, delays, [{ kind: 'done', delayMs: 3 }]);
    const control: number[] = [];
    const pending: Array<Promise<void>> = [];
    respond = () => script;
    const previous = server.sends.length;
    const { headersAtMs, piecesAtMs } = scheduleOf(script);
    const controlled = new WeakSet<RequestRecord>();
    const watch = setInterval(() => {
      for (const sent of server.sends.slice(previous)) {
        if (controlled.has(sent)) continue;
        controlled.add(sent);
        for (const offset of [headersAtMs, ...piecesAtMs]) {
          const due = sent.request.arrivedAt + offset;
          pending.push(
            new Promise((resolve) =>
              runAt(due, () => {
                control.push(performance.now() - due);
                resolve();
              }),
            ),
          );
        }
      }
    }, 0);
    await Promise.all(Array.from({ length: 4 }, () => post(server.url, CHAT, STREAM_BODY)));
    clearInterval(watch);
    await Promise.all(pending);
    const records = server.sends.slice(-4);
    const lateness = records.flatMap((sent) => [
      (sent.headersSentAt ?? 0) - (sent.headersScheduledAt ?? 0),
      ...sent.pieces.map((piece) => piece.sentAt - piece.scheduledAt),
    ]);
    assert.equal(lateness.length, 4 * 63);
    assert.ok(
      lateness.every((late) => late >= 0),
      'never early',
    );
    const median = quantile(lateness, 0.5);
    const max = Math.max(...lateness);
    const controlMedian = quantile(control, 0.5);
    const controlMax = Math.max(...control);
    t.diagnostic(
      `lateness median ${median.toFixed(3)} ms, p95 ${quantile(lateness, 0.95).toFixed(3)} ms, max ${max.toFixed(3)} ms; ` +
        `control (${control.length} bare timers) median ${controlMedian.toFixed(3)} ms, max ${controlMax.toFixed(3)} ms`,
    );
    assert.ok(
      median <= Math.max(2, controlMedian + 1),
      `median lateness ${median} ms (control ${controlMedian} ms)`,
    );
    assert.ok(max <= Math.max(15, controlMax + 5), `max lateness ${max} ms (control ${controlMax} ms)`);
  });

  test('lateness does not accumulate: 300 pieces 1 ms apart are no later at the end than at the start', async () => {
    respond = () =>
      textScript(
        0,
        Array.from({ length: 300 }, () => 1),
      );
    await post(server.url, CHAT, STREAM_BODY);
    const sent = server.sends.at(-1);
    assert.ok(sent);
    const late = sent.pieces.map((piece) => piece.sentAt - piece.scheduledAt);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    // Waiting 1 ms from each write instead of from the schedule would add ≥ 0.2 ms per piece: ≥ 50 ms by the end.
    const growth = mean(late.slice(-50)) - mean(late.slice(0, 50));
    assert.ok(growth < 25, `the last 50 pieces are ${growth.toFixed(1)} ms later than the first 50`);
    const last = sent.pieces.at(-1);
    assert.ok(last && Math.abs(last.scheduledAt - sent.request.arrivedAt - 300) < 1e-6);
  });

  test('binary pieces (the AWS event stream) are written as they are, each at its time', async () => {
    respond = () => exampleScript({ headersDelayMs: 5, delayMs: 4 });
    const response = await fetch(`${server.url}/model/anthropic.claude-sim%3A0/invoke-with-response-stream`, {
      method: 'POST',
      body: '{"messages":[]}',
    });
    assert.equal(response.headers.get('content-type'), 'application/vnd.amazon.eventstream');
    const reads: Array<{ at: number; bytes: Uint8Array }> = [];
    const reader = response.body?.getReader();
    for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
      reads.push({ at: performance.now(), bytes: read.value });
    }
    const sent = server.sends.at(-1);
    assert.ok(sent?.script.kind === 'stream');
    const context = { model: 'anthropic.claude-sim:0', createdAtMs: 0, id: `sim${sent.request.index}` };
    const rendered = bedrockInvokeWriter().render(sent.script, { ...context, includeUsage: false });
    assert.ok(
      Buffer.concat(reads.map((read) => read.bytes)).equals(Buffer.concat(rendered)),
      'byte for byte',
    );
    assert.deepEqual(
      sent.pieces.map((piece) => piece.bytes),
      rendered.map((piece) => piece.byteLength),
    );
    assert.ok(sent.pieces.every((piece) => piece.sentAt >= piece.scheduledAt));
    const firstText = sent.pieces.find((piece) => piece.kind === 'text');
    assert.equal(sentMilestones(sent).first_text, firstText?.sentAt);
    assert.ok((reads[0]?.at ?? 0) >= (sent.pieces[0]?.sentAt ?? Number.POSITIVE_INFINITY));
  });

  test('the schedule counts from the request’s arrival, headers included', async () => {
    respond = () => textScript(120, [30]);
    const observed = await post(server.url, CHAT, STREAM_BODY);
    const sent = server.sends.at(-1);
    assert.ok(sent);
    assert.ok(Math.abs((sent.headersScheduledAt ?? 0) - sent.request.arrivedAt - 120) < 1e-6);
    assert.ok(observed.headersAt - sent.request.arrivedAt >= 120);
    assert.ok(Math.abs((sent.pieces.at(-1)?.scheduledAt ?? 0) - sent.request.arrivedAt - 150) < 1e-6);
  });

  test('fault: a stall before headers holds the response until its time', async () => {
    respond = () => textScript(400, [0]);
    const started = performance.now();
    const observed = await post(server.url, CHAT, STREAM_BODY);
    assert.ok(observed.headersAt - started >= 400);
    assert.equal(server.sends.at(-1)?.ending, 'complete');
  });

  test('fault: a reset mid-body is a connection reset after the bytes before it', async () => {
    respond = () => textScript(0, [5, 5], [{ kind: 'reset', delayMs: 10 }]);
    const observed = await post(server.url, CHAT, STREAM_BODY);
    assert.equal(observed.status, 200);
    assert.ok(observed.error, 'the body errored');
    assert.equal(observed.error.code, 'ECONNRESET');
    // A reset discards what the client had not read yet, so under load it may have seen fewer.
    const words =
      observed.reads
        .map((read) => read.text)
        .join('')
        .match(/w\d/g) ?? [];
    assert.ok(words.length <= 2);
    const sent = server.sends.at(-1);
    assert.equal(sent?.ending, 'reset');
    assert.deepEqual(
      sent?.pieces.map((piece) => [piece.kind, piece.bytes > 0]),
      [
        ['start', true],
        ['text', true],
        ['text', true],
        ['reset', false],
      ],
    );
  });

  test('fault: a body that ends early ends cleanly, without the terminal event', async () => {
    const full = exampleScript({ delayMs: 1, headersDelayMs: 0 });
    respond = () => ({ ...full, pieces: full.pieces.filter((piece) => piece.kind !== 'done') });
    const observed = await post(server.url, CHAT, STREAM_BODY);
    assert.equal(observed.error, undefined);
    const text = observed.reads.map((read) => read.text).join('');
    assert.match(text, /"finish_reason":"stop"/);
    assert.doesNotMatch(text, /\[DONE\]/);
    assert.equal(server.sends.at(-1)?.ending, 'complete');
  });

  test('fault: a hang stops writing and keeps the connection open until the client leaves', async () => {
    respond = () =>
      textScript(
        0,
        [5],
        [
          { kind: 'hang', delayMs: 5 },
          { kind: 'done', delayMs: 0 },
        ],
      );
    const observed = await post(server.url, CHAT, STREAM_BODY, { abortAfterMs: 250 });
    assert.equal(observed.error?.code, 'ABORTED');
    assert.ok(observed.endedAt - observed.headersAt >= 200, 'the connection stayed open');
    const sent = server.sends.at(-1);
    assert.equal(sent?.ending, 'hang');
    assert.deepEqual(
      sent?.pieces.map((piece) => piece.kind),
      ['start', 'text', 'hang'],
    );
  });

  test('fault: no answer at all, not even headers, until the client gives up', async () => {
    respond = () => ({ kind: 'no-answer' });
    const observed = await post(server.url, CHAT, STREAM_BODY, { abortAfterMs: 200 });
    assert.equal(observed.status, 0);
    assert.equal(observed.error?.code, 'ABORTED');
    const sent = server.sends.at(-1);
    assert.equal(sent?.ending, 'no-answer');
    assert.equal(sent?.headersSentAt, undefined);
  });

  test('fault: a reset before any header', async () => {
    respond = () => ({ kind: 'reset', delayMs: 20 });
    const observed = await post(server.url, CHAT, STREAM_BODY);
    assert.equal(observed.status, 0);
    assert.equal(observed.error?.code, 'ECONNRESET');
    assert.equal(server.sends.at(-1)?.ending, 'reset');
  });

  test('a client that goes away stops the playback: nothing more is written', async () => {
    respond = () =>
      textScript(
        0,
        Array.from({ length: 20 }, () => 20),
      );
    await post(server.url, CHAT, STREAM_BODY, { abortAfterMs: 110 });
    await server.settled();
    const sent = server.sends.at(-1);
    assert.equal(sent?.ending, 'client-closed');
    assert.ok((sent?.pieces.length ?? 99) < 10);
  });

  test('error replies are sent whole at their time, with the provider body', async () => {
    respond = () => ({ kind: 'error', status: 429, headersDelayMs: 50, retryAfterSeconds: 1.5 });
    const observed = await post(server.url, CHAT, STREAM_BODY);
    assert.equal(observed.status, 429);
    assert.equal(observed.headers['retry-after'], '2');
    assert.equal(observed.headers['retry-after-ms'], '1500');
    const sent = server.sends.at(-1);
    assert.ok(sent && observed.headersAt - sent.request.arrivedAt >= 50);
    assert.equal(sent.ending, 'error-reply');
  });

  test('backpressure: a client that stops reading holds the next pieces back, and every byte arrives', async () => {
    const big = 'x'.repeat(256 * 1024);
    const pieces: Piece[] = Array.from({ length: 64 }, () => ({ kind: 'text', delayMs: 0, text: big }));
    respond = () => ({ kind: 'stream', headersDelayMs: 0, pieces });
    const received = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}${CHAT}`, { method: 'POST' });
      req.once('response', (res) => {
        let bytes = 0;
        res.pause();
        setTimeout(() => {
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.resume();
        }, 300);
        res.once('end', () => resolve(bytes));
        res.once('error', reject);
      });
      req.end(STREAM_BODY);
    });
    const sent = server.sends.at(-1);
    assert.ok(sent);
    const rendered = sent.pieces.reduce((sum, piece) => sum + piece.bytes, 0);
    assert.equal(received, rendered);
    const held = sent.pieces.filter((piece) => piece.sentAt - piece.scheduledAt > 250);
    assert.ok(held.length > 0, 'later pieces waited for the client to drain');
  });

  test('the request body is read and discarded: only its size and three fields are kept, nothing is printed', async () => {
    const canary = 'CANARY-prompt-7f3a';
    const body = JSON.stringify({
      model: 'gpt-canary',
      stream: true,
      messages: [{ role: 'user', content: `${canary} ${'y'.repeat(2 * 1024 * 1024)}` }],
    });
    respond = () => textScript(0, [1]);
    const printed: string[] = [];
    const stdout = process.stdout.write.bind(process.stdout);
    const stderr = process.stderr.write.bind(process.stderr);
    const capture = (chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    try {
      await post(server.url, CHAT, body);
    } finally {
      process.stdout.write = stdout;
      process.stderr.write = stderr;
    }
    const sent = server.sends.at(-1);
    assert.equal(sent?.request.model, 'gpt-canary');
    assert.equal(sent?.request.bodyBytes, Buffer.byteLength(body));
    assert.doesNotMatch(JSON.stringify(sent), new RegExp(canary));
    assert.doesNotMatch(printed.join(''), new RegExp(canary));
  });

  test('a respond() that throws is a 500 naming the simulator, and the server keeps serving', async () => {
    respond = () => {
      throw new Error('no script for this');
    };
    const failed = await post(server.url, CHAT, STREAM_BODY);
    assert.equal(failed.status, 500);
    assert.match(failed.reads.map((read) => read.text).join(''), /lanewatch simulator: respond\(\) failed/);
    respond = () => textScript(0, [1]);
    assert.equal((await post(server.url, CHAT, STREAM_BODY)).status, 200);
  });

  test('a client that leaves while respond() still runs is recorded as gone, and nothing is played', async () => {
    let answer = (_script: Script) => {};
    const late = new Promise<Script>((resolve) => {
      answer = resolve;
    });
    const slow = await startProviderServer({ respond: () => late });
    try {
      const observed = await post(slow.url, CHAT, STREAM_BODY, { abortAfterMs: 30 });
      assert.equal(observed.error?.code, 'ABORTED');
      // Let the server see the connection close, then let respond() finish.
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer(textScript(0, [1]));
      while (slow.sends.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await slow.settled();
      assert.equal(slow.sends[0]?.ending, 'client-closed');
      assert.deepEqual(slow.sends[0]?.pieces, []);
    } finally {
      await slow.close();
    }
  });

  test('a script the format cannot carry is a 500 that says why', async () => {
    respond = () => ({
      kind: 'stream',
      headersDelayMs: 0,
      pieces: [{ kind: 'tool-call', delayMs: 0, call: 0, name: 'f', args: '{"broken":' }],
    });
    const observed = await post(server.url, '/api/chat', '{"model":"m"}');
    assert.equal(observed.status, 500);
    assert.match(
      observed.reads.map((read) => read.text).join(''),
      /cannot play this script: WireFormatError: ollama sends whole tool calls/,
    );
  });

  test('a non-streaming request gets the whole answer at once, when the script would have ended', async () => {
    respond = () => exampleScript({ headersDelayMs: 20, delayMs: 10 });
    const observed = await post(server.url, CHAT, JSON.stringify({ model: 'm', messages: [] }));
    assert.equal(observed.status, 200);
    assert.equal(observed.headers['content-type'], 'application/json');
    const body = JSON.parse(observed.reads.map((read) => read.text).join('')) as {
      object: string;
      choices: Array<{ message: { content: string } }>;
    };
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.choices[0]?.message.content, 'It is sunny in Paris.');
    const sent = server.sends.at(-1);
    assert.ok(sent);
    assert.ok(
      Math.abs((sent.headersScheduledAt ?? 0) - sent.request.arrivedAt - 110) < 1e-6,
      'at the last piece',
    );
    assert.ok(observed.headersAt - sent.request.arrivedAt >= 110);
    assert.deepEqual(sent.pieces, []);
    assert.equal(sent.ending, 'complete');
  });

  test('a non-streaming request meets the script’s faults: an in-stream error becomes an error reply', async () => {
    respond = () => ({
      kind: 'stream',
      headersDelayMs: 5,
      pieces: [
        { kind: 'text', delayMs: 5, text: 'x' },
        { kind: 'error', delayMs: 5, errorType: 'overloaded' },
      ],
    });
    const chat = await post(server.url, CHAT, '{}');
    assert.equal(chat.status, 503);
    const anthropic = await post(server.url, '/v1/messages', '{}');
    assert.equal(anthropic.status, 529);
    assert.match(anthropic.reads.map((read) => read.text).join(''), /overloaded_error/);
    respond = () => textScript(5, [5], [{ kind: 'reset', delayMs: 5 }]);
    const reset = await post(server.url, CHAT, '{}');
    assert.equal(reset.error?.code, 'ECONNRESET');
  });

  test('requests are numbered in order of arrival; respond sees the index', async () => {
    const seen: number[] = [];
    respond = (index) => {
      seen.push(index);
      return textScript(0, [1]);
    };
    const first = server.sends.length;
    await post(server.url, CHAT, STREAM_BODY);
    await post(server.url, CHAT, STREAM_BODY);
    assert.equal(seen.length, 2);
    assert.equal((seen[1] ?? 0) - (seen[0] ?? 0), 1);
    assert.equal(record(seen[1] ?? -1).request.index, seen[1]);
    assert.equal(server.sends.length, first + 2);
  });
});

describe('provider server: close()', () => {
  test('ends hung and unanswered requests and resolves', async () => {
    const server = await startProviderServer({
      respond: (request) =>
        request.index === 0 ? { kind: 'no-answer' } : textScript(0, [1], [{ kind: 'hang', delayMs: 0 }]),
    });
    const pending = [post(server.url, CHAT, STREAM_BODY), post(server.url, CHAT, STREAM_BODY)];
    while (server.sends.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.settled();
    await server.close();
    const observed = await Promise.all(pending);
    assert.ok(observed.every((seen) => seen.error !== undefined));
    assert.deepEqual(server.sends.map((sent) => sent.ending).sort(), ['hang', 'no-answer']);
  });
});

/** What a node:http2 client saw on one stream of `session`. */
function postH2(session: ClientHttp2Session, path: string, body: string) {
  return new Promise<Observed & { rstCode: number | undefined }>((resolve) => {
    const observed: Observed & { rstCode: number | undefined } = { ...nothingObserved(), rstCode: undefined };
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json' });
    stream.once('response', (headers) => {
      observed.headersAt = performance.now();
      observed.status = Number(headers[':status']);
      observed.headers = headers as IncomingHttpHeaders;
    });
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => observed.reads.push({ at: performance.now(), text }));
    stream.once('error', (error) => {
      observed.error = error;
    });
    stream.once('close', () => {
      observed.endedAt = performance.now();
      observed.rstCode = stream.rstCode;
      resolve(observed);
    });
    stream.end(body);
  });
}

/** Every read of a response, in order, as one text. */
const textOf = (observed: Observed) => observed.reads.map((read) => read.text).join('');

describe('provider server over TLS: HTTP/2 and HTTP/1.1 on one port, as a provider serves them', () => {
  test('an h2 client gets HTTP/2, each piece at its time; an HTTP/1.1 client gets HTTP/1.1, the same bytes', async () => {
    const server = await startProviderServer({
      respond: () => textScript(10, [20, 20, 20]),
      tls: LOCALHOST_TLS,
    });
    const session = http2Connect(server.url, { ca: LOCALHOST_TLS.cert });
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const h2 = await postH2(session, CHAT, STREAM_BODY);
      const h1 = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(
          `${server.url}${CHAT}`,
          { method: 'POST', ca: LOCALHOST_TLS.cert },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
            });
            res.once('end', () => resolve(text));
          },
        );
        req.once('error', reject);
        req.end(STREAM_BODY);
      });
      assert.deepEqual(
        server.sends.map((sent) => sent.httpVersion),
        ['2.0', '1.1'],
      );
      assert.equal(h2.status, 200);
      assert.equal(h2.error, undefined);
      assert.match(String(h2.headers['content-type']), /^text\/event-stream/);
      const text = textOf(h2);
      assert.ok(text.includes('w2 '), 'the whole stream');
      // The same events either way; only the response id (the request's number) and the clock differ.
      const same = (body: string) => body.replaceAll(/sim\d+/g, 'sim').replaceAll(/"created":\d+/g, '');
      assert.equal(same(h1), same(text), 'HTTP/1.1 gets the same events');
      // Each text piece is read in its own DATA frame at its time, not merged with the next.
      const [first] = server.sends;
      const sentTexts = (first?.pieces ?? []).filter((piece) => piece.kind === 'text');
      assert.equal(sentTexts.length, 3);
      for (const [i, piece] of sentTexts.entries()) {
        const read = h2.reads.find((r) => r.text.includes(`w${i} `));
        assert.ok(read, `w${i} read`);
        assert.ok(read.at >= piece.sentAt, 'read after it was sent');
        assert.ok(
          read.at - piece.sentAt < 15,
          `w${i} read ${(read.at - piece.sentAt).toFixed(1)} ms after its send`,
        );
      }
    } finally {
      session.close();
      await server.close();
    }
  });

  test('fault: a reset over h2 resets that stream after the bytes before it; the connection serves on', async () => {
    const server = await startProviderServer({
      respond: (request) =>
        request.index === 0 ? textScript(0, [5, 5], [{ kind: 'reset', delayMs: 5 }]) : textScript(0, [5]),
      tls: LOCALHOST_TLS,
    });
    const session = http2Connect(server.url, { ca: LOCALHOST_TLS.cert });
    try {
      const reset = await postH2(session, CHAT, STREAM_BODY);
      assert.equal(reset.rstCode, http2Constants.NGHTTP2_INTERNAL_ERROR);
      assert.ok(textOf(reset).includes('w1 '), 'the bytes before the reset arrived');
      const after = await postH2(session, CHAT, STREAM_BODY);
      assert.equal(after.error, undefined);
      assert.equal(after.rstCode, http2Constants.NGHTTP2_NO_ERROR);
      assert.ok(textOf(after).includes('w0 '), 'the same connection serves the next call');
      assert.deepEqual(
        server.sends.map((sent) => sent.ending),
        ['reset', 'complete'],
      );
    } finally {
      session.close();
      await server.close();
    }
  });

  test('close() ends hung h2 streams and resolves', async () => {
    const server = await startProviderServer({
      respond: () => textScript(0, [1], [{ kind: 'hang', delayMs: 0 }]),
      tls: LOCALHOST_TLS,
    });
    const session = http2Connect(server.url, { ca: LOCALHOST_TLS.cert });
    session.on('error', () => {});
    const pending = postH2(session, CHAT, STREAM_BODY);
    while (server.sends.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    await server.settled();
    await server.close();
    const seen = await pending;
    assert.ok(
      seen.error !== undefined || seen.rstCode !== http2Constants.NGHTTP2_NO_ERROR,
      'the stream was cut',
    );
    assert.deepEqual(
      server.sends.map((sent) => sent.ending),
      ['hang'],
    );
  });
});
