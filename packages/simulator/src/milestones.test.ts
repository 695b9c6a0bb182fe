import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exampleScript } from './example-script.ts';
import { scheduledMilestones, sentMilestones } from './milestones.ts';
import { startProviderServer } from './provider-server.ts';
import { defaultWriters } from './writers.ts';

const CONTEXT = { model: 'm', createdAtMs: 0, id: 'x', includeUsage: true } as const;

describe('milestones', () => {
  test('scheduled milestones follow what each format writes', () => {
    const writers = defaultWriters();
    const script = exampleScript({ headersDelayMs: 20, delayMs: 10 });
    // Pieces are due at 30 (start), 40 (heartbeat), 50 (reasoning), 70 / 80 (tool call), 90 (text), 110 (finish …).
    assert.deepEqual(scheduledMilestones(script, writers['openai-chat'], CONTEXT), {
      headers: 20,
      first_chunk: 30,
      first_output: 50,
      first_text: 90,
      end: 110,
    });
    // Gemini has no meta event and no keep-alive: the first bytes are the first thought.
    assert.equal(scheduledMilestones(script, writers.gemini, CONTEXT).first_chunk, 50);
    // Ollama writes the whole tool call at its last fragment, after the thinking.
    assert.equal(
      scheduledMilestones(script, writers.ollama, { ...CONTEXT, endpoint: 'chat' }).first_output,
      50,
    );
    // Bedrock's event stream has no keep-alive either: its first bytes are the message start.
    for (const format of ['bedrock-invoke', 'bedrock-converse'] as const) {
      assert.deepEqual(scheduledMilestones(script, writers[format], CONTEXT), {
        headers: 20,
        first_chunk: 30,
        first_output: 50,
        first_text: 90,
        end: 110,
      });
    }
    assert.deepEqual(
      scheduledMilestones({ kind: 'error', status: 429, headersDelayMs: 15 }, writers.anthropic, CONTEXT),
      {
        headers: 15,
        end: 15,
      },
    );
    assert.deepEqual(scheduledMilestones({ kind: 'no-answer' }, writers.anthropic, CONTEXT), {});
    // Without streaming, headers and body leave together when the last piece would have.
    assert.deepEqual(scheduledMilestones(script, writers['openai-chat'], CONTEXT, { stream: false }), {
      headers: 110,
      end: 110,
    });
  });

  test('sent milestones are on the client’s clock: the client sees each one after the server sent it', async () => {
    const server = await startProviderServer({
      respond: () => exampleScript({ headersDelayMs: 20, delayMs: 10 }),
    });
    try {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{"stream":true}' });
      const headersAt = performance.now();
      const reader = response.body?.getReader();
      let firstChunkAt: number | undefined;
      for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) {
        firstChunkAt ??= performance.now();
      }
      const endAt = performance.now();
      const sent = server.sends[0];
      assert.ok(sent);
      const milestones = sentMilestones(sent);
      assert.ok(started <= sent.request.arrivedAt);
      assert.ok((milestones.headers ?? Number.NaN) <= headersAt);
      assert.ok((milestones.first_chunk ?? Number.NaN) <= (firstChunkAt ?? 0));
      assert.ok((milestones.end ?? Number.NaN) <= endAt);
      assert.ok((milestones.first_text ?? 0) > (milestones.first_output ?? Number.NaN));
    } finally {
      await server.close();
    }
  });
});
