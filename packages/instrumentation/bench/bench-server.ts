// The provider side of the benchmarks, in its own process so its CPU is not counted: the stream of
// `bench-workload.ts` for every request.
import { startProviderServer } from '@lanewatch/simulator';
import { CHAT_PIECES, CHAT_USAGE } from './bench-workload.ts';

const server = await startProviderServer({
  respond: () => ({
    kind: 'stream',
    headersDelayMs: 0,
    pieces: [...CHAT_PIECES],
    usage: CHAT_USAGE,
  }),
});
// The simulator keeps a record of every request for tests to read; a benchmark makes hundreds of
// thousands, and a server slowed by its own heap would coalesce events into fewer chunks.
setInterval(() => {
  (server.sends as unknown[]).length = 0;
}, 1000).unref();
process.stdout.write(`${server.url}\n`);
process.on('message', () => {});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
