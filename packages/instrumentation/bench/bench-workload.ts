// The workload of every instrumentation benchmark, in one place: a streamed Chat Completions call
// that asks for the usage report (as callers who count tokens do), answered with 50 events — the
// role, 47 text deltas, the usage report and `[DONE]` — one write each.
import type { Piece } from '@lanewatch/simulator';

export const CHAT_PATH = '/v1/chat/completions';

export const CHAT_BODY = JSON.stringify({
  model: 'gpt-bench',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'hi' }],
});

export const CHAT_PIECES: readonly Piece[] = [
  { kind: 'start', delayMs: 0 },
  ...Array.from({ length: 47 }, (_, i): Piece => ({ kind: 'text', delayMs: 0, text: `token${i} ` })),
  { kind: 'usage', delayMs: 0 },
  { kind: 'done', delayMs: 0 },
];

export const CHAT_USAGE = { inputTokens: 20, outputTokens: 47 } as const;
