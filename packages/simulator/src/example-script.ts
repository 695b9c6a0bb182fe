import type { StreamScript } from './script.ts';

/**
 * A short response with every kind of output a stream can carry — a keep-alive, reasoning, a tool
 * call split in two fragments, text, the stop, the usage and the terminal event — at fixed delays.
 * Tests of any format start here; `delayMs` scales every gap after the headers.
 */
export function exampleScript(options: { headersDelayMs?: number; delayMs?: number } = {}): StreamScript {
  const gap = options.delayMs ?? 10;
  return {
    kind: 'stream',
    headersDelayMs: options.headersDelayMs ?? 20,
    pieces: [
      { kind: 'start', delayMs: gap },
      { kind: 'heartbeat', delayMs: gap },
      { kind: 'reasoning', delayMs: gap, text: 'The user wants the weather.' },
      { kind: 'reasoning', delayMs: gap, text: ' Call the tool.' },
      { kind: 'tool-call', delayMs: gap, call: 0, name: 'get_weather', args: '{"city":"Pa' },
      { kind: 'tool-call', delayMs: gap, call: 0, name: 'get_weather', args: 'ris","unit":"celsius"}' },
      { kind: 'text', delayMs: gap, text: 'It is ' },
      { kind: 'text', delayMs: gap, text: 'sunny in Paris.' },
      { kind: 'finish', delayMs: gap, reason: 'stop' },
      { kind: 'usage', delayMs: 0 },
      { kind: 'done', delayMs: 0 },
    ],
    usage: { inputTokens: 42, outputTokens: 17, reasoningTokens: 9 },
  };
}
