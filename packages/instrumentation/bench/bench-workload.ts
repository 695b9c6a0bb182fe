// The workloads of the instrumentation benchmarks, in one place. The main one: a streamed Chat
// Completions call that asks for the usage report (as callers who count tokens do), answered with
// 50 events — the role, 47 text deltas, the usage report and `[DONE]` — one write each. Beside it,
// the traffic lanewatch must leave alone at next to no cost: a JSON POST to an ordinary API
// (`PLAIN_PATH`), answered with JSON — the costliest kind of non-LLM request for lanewatch, since
// an unknown POST is followed until its headers show it is not a stream.
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

export const PLAIN_PATH = '/api/orders';

export const PLAIN_BODY = JSON.stringify({ customer: 42, items: [{ sku: 'A-1', quantity: 2 }] });

export const PLAIN_RESPONSE = JSON.stringify({
  id: 'order-1',
  status: 'accepted',
  items: Array.from({ length: 8 }, (_, i) => ({ sku: `A-${i}`, quantity: 1, price: 9.5 })),
});
