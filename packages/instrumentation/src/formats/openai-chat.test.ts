import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { parseObject } from './json-scan.ts';
import { openaiChat, openaiChatReaders } from './openai-chat.ts';
import { createStreamReport } from './stream-report.ts';
import { countJsonParses, detect, RecordingObserver, sse } from './testdata/harness.ts';

const chunk = (delta: object, extra: object = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

describe('openaiChat', () => {
  it('treats role-only and empty deltas as events, not output', () => {
    const body = sse(chunk({ role: 'assistant', content: '' }), chunk({ content: null }), chunk({}));
    assert.deepEqual(detect(openaiChat, [body]), ['event', 'event', 'event']);
  });

  it('does not count a tool name without arguments as output, then counts the first arguments', () => {
    const named = {
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
    };
    const args = { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] };
    assert.deepEqual(detect(openaiChat, [sse(chunk(named), chunk(args))]), [
      'event',
      'event',
      'output tool_call',
    ]);
  });

  it('reads the legacy function_call arguments', () => {
    const body = sse(
      chunk({ function_call: { name: 'f', arguments: '' } }),
      chunk({ function_call: { arguments: '{' } }),
    );
    assert.deepEqual(detect(openaiChat, [body]), ['event', 'event', 'output tool_call']);
  });

  it('reads reasoning from reasoning_content and from reasoning', () => {
    assert.deepEqual(detect(openaiChat, [sse(chunk({ reasoning_content: 'r' }))]), [
      'event',
      'output reasoning',
    ]);
    assert.deepEqual(detect(openaiChat, [sse(chunk({ reasoning: 'r' }))]), ['event', 'output reasoning']);
  });

  it('types errors by error.type, else error.code; a bare error string is untyped', () => {
    assert.deepEqual(detect(openaiChat, [sse({ error: { type: 'server_error', code: 'x' } })]), [
      'event',
      'streamError server_error',
    ]);
    assert.deepEqual(detect(openaiChat, [sse({ error: { message: 'm', code: 'rate_limit_exceeded' } })]), [
      'event',
      'streamError rate_limit_exceeded',
    ]);
    assert.deepEqual(detect(openaiChat, [sse({ error: 'Something about the prompt' })]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('reads an SSE `event: error`, even when its data is not JSON', () => {
    assert.deepEqual(detect(openaiChat, [sse(['error', { error: { type: 'server_error' } }])]), [
      'event',
      'streamError server_error',
    ]);
    assert.deepEqual(detect(openaiChat, [sse(['error', 'upstream went away'])]), [
      'event',
      'streamError untyped',
    ]);
  });

  it('ignores `usage: null` and reports a usage chunk', () => {
    const body = sse(
      chunk({ content: 'a' }, { usage: null }),
      { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } },
      '[DONE]',
    );
    assert.deepEqual(detect(openaiChat, [body]), [
      'event',
      'output text',
      'event',
      'usage 3 4',
      'event',
      'terminal',
    ]);
  });

  it('is terminal once, at the first [DONE]', () => {
    assert.deepEqual(detect(openaiChat, [sse('[DONE]', '[DONE]')]), ['event', 'terminal', 'event']);
  });

  it('skips a data line over the cap, still counting its event', () => {
    const body = sse(chunk({ content: 'x'.repeat(200) }), chunk({ content: 'a' }));
    assert.deepEqual(detect(openaiChat, [body], { maxLineBytes: 128 }), [
      'oversizedLine',
      'event',
      'event',
      'output text',
    ]);
  });

  it('parses no plain text chunk once text has been seen', () => {
    const texts = Array.from({ length: 50 }, (_, i) =>
      chunk({ content: ` word${i}`, reasoning_content: null }, { usage: null }),
    );
    const body = sse(chunk({ role: 'assistant', content: '' }), ...texts);
    assert.equal(
      countJsonParses(() => detect(openaiChat, [body])),
      0,
    );
  });

  it('reads an OpenAI stream — the first text, the usage report — with no JSON.parse at all', () => {
    const body = sse(
      chunk({ role: 'assistant', content: '', refusal: null }, { usage: null }),
      chunk({ content: 'Hello' }, { usage: null }),
      chunk({ content: ' "quoted" \\ text' }, { usage: null }),
      chunk({}, { usage: null }),
      {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        choices: [],
        usage: {
          prompt_tokens: 20,
          completion_tokens: 47,
          total_tokens: 67,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
      '[DONE]',
    );
    let calls: string[] = [];
    assert.equal(
      countJsonParses(() => {
        calls = detect(openaiChat, [body]);
      }),
      0,
    );
    assert.deepEqual(calls, [
      'event',
      'event',
      'output text',
      'event',
      'event',
      'event',
      'usage 20 47',
      'event',
      'terminal',
    ]);
  });

  it('reads an event without JSON.parse only where parsing it would say the same, cut short or not', () => {
    const { readPlainly, readChunk, wantedBeforeText, wantedAfterText } = openaiChatReaders;
    const choice = (delta: unknown, more: object = {}) => ({
      id: 'c',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: null, ...more }],
    });
    const usage = (u: unknown, more: object = {}) => ({ id: 'c', choices: [], usage: u, ...more });
    const events: string[] = [
      JSON.stringify(choice({ content: 'Hi' })),
      JSON.stringify(choice({ role: 'assistant', content: 'Hi' })),
      JSON.stringify(choice({ content: 'a "b" \\ c \u00e9 \n' })),
      JSON.stringify(choice({ content: '' })),
      JSON.stringify(choice({ content: null, reasoning_content: 'r' })),
      JSON.stringify(choice({ content: 'Hi', reasoning_content: 'r' })),
      JSON.stringify(choice({ content: [{ type: 'text', text: 'Hi' }] })),
      JSON.stringify(choice({ content: 'Hi' }, { logprobs: { content: [{ token: 'Hi' }] } })),
      JSON.stringify({ id: 'c', choices: [{ index: 0, message: { content: 'Hi' } }] }),
      JSON.stringify({ id: 'c', other: [{ delta: { content: 'Hi' } }], choices: [] }),
      JSON.stringify({ choices: [{ delta: { content: 'a' } }, { delta: { content: 'b' } }] }),
      JSON.stringify(choice({ content: 'Hi' }, {}), null, 2),
      JSON.stringify(choice({ content: 'Hi' }))
        .replaceAll(':', ': ')
        .replaceAll(',', ', '),
      JSON.stringify(choice({ content: 'Hi', tool_calls: [{ function: { arguments: '{"content":"x"}' } }] })),
      JSON.stringify(usage({ prompt_tokens: 3, completion_tokens: 2 })),
      JSON.stringify(usage({ prompt_tokens: 3 })),
      JSON.stringify(usage({ total_tokens: 5 })),
      JSON.stringify(usage({ prompt_tokens: 0, completion_tokens: 0 })),
      JSON.stringify(
        usage({ prompt_tokens: 3, completion_tokens: 2, prompt_tokens_details: { prompt_tokens: 9 } }),
      ),
      JSON.stringify(usage({ prompt_tokens: 3.5, completion_tokens: 2 })),
      JSON.stringify(usage({ prompt_tokens: -3, completion_tokens: 2 })),
      JSON.stringify(usage({ prompt_tokens: '3', completion_tokens: 2 })),
      JSON.stringify(usage({ prompt_tokens: 1e21, completion_tokens: 2 })),
      JSON.stringify(usage({ prompt_tokens: 2 ** 53 + 1, completion_tokens: 2 })),
      JSON.stringify(usage({ prompt_tokens: 3, completion_tokens: 2 }, { error: { type: 'server_error' } })),
      JSON.stringify(usage({ prompt_tokens: 3, completion_tokens: 2 }, { object: 'error' })),
      JSON.stringify(usage(null, { x_groq: { usage: { prompt_tokens: 4, completion_tokens: 5 } } })),
      JSON.stringify(
        usage({ prompt_tokens: 1, completion_tokens: 1 }, { x_groq: { usage: { prompt_tokens: 4 } } }),
      ),
      JSON.stringify({ choices: [{ delta: {}, usage: { prompt_tokens: 4, completion_tokens: 5 } }] }),
      JSON.stringify(usage({ prompt_tokens: 3, completion_tokens: 2 })).replace(
        '"prompt_tokens":3',
        '"prompt_tokens":03',
      ),
      `${JSON.stringify(usage({ prompt_tokens: 3, completion_tokens: 2 })).slice(0, -1)},"usage":{"prompt_tokens":9}}`,
      JSON.stringify(usage({ prompt_tokens: 3, completion_tokens: 2 })).replace(
        '"completion_tokens":2',
        '"completion_tokens":2,"completion_tokens":8',
      ),
      `${JSON.stringify(choice({ content: 'Hi' }))} trailing`,
      `[${JSON.stringify(choice({ content: 'Hi' }))}]`,
      `{"id":"c"}${JSON.stringify(choice({ content: 'Hi' }))}`,
      `{"id":"c"}${JSON.stringify(usage({ prompt_tokens: 3, completion_tokens: 2 }))}`,
    ];
    const reading = (read: (report: ReturnType<typeof createStreamReport>) => boolean | undefined) => {
      const observer = new RecordingObserver();
      const taken = read(createStreamReport(observer));
      return { taken, calls: observer.calls };
    };
    let plainly = 0;
    let compared = 0;
    for (const event of events) {
      // Every event whole, and cut short at every byte: a stream may end anywhere.
      const whole = Buffer.from(event);
      for (let cut = 1; cut <= whole.length; cut += 1) {
        const buffer = whole.subarray(0, cut);
        for (const wanted of [wantedBeforeText, wantedAfterText]) {
          const plain = reading((report) => readPlainly(buffer, 0, buffer.length, wanted, report));
          if (plain.taken !== true) continue;
          plainly += cut === whole.length ? 1 : 0;
          compared += 1;
          assert.ok(
            parseObject(buffer, 0, buffer.length),
            `read plainly, so one whole object: ${event.slice(0, cut)}`,
          );
          const parsed = reading((report) => {
            const object = parseObject(buffer, 0, buffer.length);
            if (object !== undefined) readChunk(object, report);
            return undefined;
          });
          assert.deepEqual(
            plain.calls,
            parsed.calls,
            `${event.slice(0, cut)} (${wanted === wantedAfterText ? 'after' : 'before'} the first text)`,
          );
        }
      }
    }
    // The common events do take the plain path, each whole and under both masks.
    assert.ok(plainly >= 12, `events read plainly: ${plainly}`);
    assert.ok(compared >= plainly);
  });
});
