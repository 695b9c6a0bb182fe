// The server side of the benchmarks, in its own process so its CPU is not counted: the stream of
// `bench-workload.ts` for every request to the provider, and the JSON answer of an ordinary API.
// Prints one line: {"stream": url, "plain": url}.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startProviderServer } from '@lanewatch/simulator';
import { CHAT_PIECES, CHAT_USAGE, PLAIN_RESPONSE } from './bench-workload.ts';

const server = await startProviderServer({
  respond: () => ({
    kind: 'stream',
    headersDelayMs: 0,
    pieces: [...CHAT_PIECES],
    usage: CHAT_USAGE,
  }),
  // BENCH_COMPRESS=1: the stream compressed as a gateway sends it (gzip, which fetch asks for over http).
  compress: process.env.BENCH_COMPRESS === '1',
});
// The simulator keeps a record of every request for tests to read; a benchmark makes hundreds of
// thousands, and a server slowed by its own heap would coalesce events into fewer chunks.
setInterval(() => {
  (server.sends as unknown[]).length = 0;
}, 1000).unref();
const plain = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(PLAIN_RESPONSE);
  });
});
plain.listen(0, '127.0.0.1');
await once(plain, 'listening');
const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
process.stdout.write(`${JSON.stringify({ stream: server.url, plain: plainUrl })}\n`);
process.on('message', () => {});
process.on('disconnect', () => {
  plain.close();
  void server.close().then(() => process.exit(0));
});
