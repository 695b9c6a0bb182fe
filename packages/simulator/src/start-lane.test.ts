import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { sentMilestones } from './milestones.ts';
import { startLane } from './start-lane.ts';

describe('startLane', () => {
  test('same seed → same timings on two servers: every piece due at the same offset from arrival', async () => {
    // Flaky (5xx, in-stream errors, early ends, resets) with the waits shortened to keep the test quick.
    const knobs = {
      headersMedianMs: 5,
      firstOutputMedianMs: 5,
      tokensPerSecondMedian: 4000,
      errorProbability: 0.2,
    };
    const lanes = await Promise.all([
      startLane('flaky', { seed: 11, knobs }),
      startLane('flaky', { seed: 11, knobs }),
    ]);
    try {
      const offsets: number[][][] = [];
      for (const { server } of lanes) {
        for (let i = 0; i < 12; i++) {
          const response = await fetch(`${server.url}/v1/chat/completions`, {
            method: 'POST',
            body: JSON.stringify({ model: 'm', stream: true }),
          }).catch(() => undefined);
          await response?.text().catch(() => undefined);
        }
        offsets.push(
          server.sends.map((sent) => [
            (sent.headersScheduledAt ?? 0) - sent.request.arrivedAt,
            ...sent.pieces.map((piece) => piece.scheduledAt - sent.request.arrivedAt),
          ]),
        );
      }
      const [a, b] = offsets;
      assert.equal(a?.length, 12);
      assert.equal(a.flat().length, b?.flat().length);
      for (const [k, time] of a.flat().entries())
        assert.ok(Math.abs(time - (b?.flat()[k] ?? Number.NaN)) < 1e-6);
    } finally {
      await Promise.all(lanes.map(({ server }) => server.close()));
    }
  });

  test('a lane speaks every format: the SDKs read a thinker lane’s reasoning before its text', async () => {
    const lane = await startLane('thinker', {
      knobs: {
        headersMedianMs: 5,
        firstOutputMedianMs: 5,
        actionProbability: 1,
        actionLeadMedianMs: 60,
        actionLeadSigma: 0,
        tokensPerSecondMedian: 2000,
      },
    });
    try {
      const anthropic = new Anthropic({ apiKey: 'dummy', baseURL: lane.server.url, maxRetries: 0 });
      const message = await anthropic.messages
        .stream({ model: 'claude-lane', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
        .finalMessage();
      assert.deepEqual(
        message.content.map((block) => block.type),
        ['thinking', 'text'],
      );
      const openai = new OpenAI({ apiKey: 'dummy', baseURL: `${lane.server.url}/v1`, maxRetries: 0 });
      const response = await openai.responses.stream({ model: 'gpt-lane', input: 'x' }).finalResponse();
      assert.deepEqual(
        response.output.map((item) => item.type),
        ['reasoning', 'message'],
      );
      const sample = lane.responder.sampleOf(1);
      const sent = lane.server.sends[1];
      assert.ok(sample && sent && sample.script === sent.script);
      const milestones = sentMilestones(sent);
      assert.ok(
        (milestones.first_text ?? 0) - (milestones.first_output ?? 0) >= 40,
        'text came after the lead',
      );
    } finally {
      await lane.server.close();
    }
  });
});
