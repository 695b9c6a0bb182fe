// The provider side of `npm run bench`, in its own process so its CPU is not counted: a Chat
// Completions stream of 50 events (role, 47 text deltas, usage, [DONE]), one write per event.
import { type Piece, startProviderServer } from '@lanewatch/simulator';

const pieces: Piece[] = [
  { kind: 'start', delayMs: 0 },
  ...Array.from({ length: 47 }, (_, i): Piece => ({ kind: 'text', delayMs: 0, text: `token${i} ` })),
  { kind: 'usage', delayMs: 0 },
  { kind: 'done', delayMs: 0 },
];
const server = await startProviderServer({
  respond: () => ({
    kind: 'stream',
    headersDelayMs: 0,
    pieces,
    usage: { inputTokens: 20, outputTokens: 47 },
  }),
});
process.stdout.write(`${server.url}\n`);
process.on('message', () => {});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
