import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { laneKnobs } from './lane-knobs.ts';
import { laneResponder } from './lane-responder.ts';
import type { ProviderRequest } from './provider-server.ts';

const request = (index: number, arrivedAt: number): ProviderRequest => ({
  index,
  format: 'openai-chat',
  path: '/v1/chat/completions',
  model: 'm',
  stream: true,
  includeUsage: false,
  headers: {},
  bodyBytes: 0,
  arrivedAt,
});

describe('laneResponder', () => {
  test('the first coldStartRequests requests are cold, then warm', async () => {
    const responder = laneResponder(laneKnobs({ coldStartRequests: 2 }), { seed: 1 });
    for (let index = 0; index < 4; index++) await responder.respond(request(index, index * 10));
    assert.deepEqual(
      [0, 1, 2, 3].map((index) => responder.sampleOf(index)?.traits.cold),
      [true, true, false, false],
    );
  });

  test('a request after coldStartIdleMs without arrivals is cold again', async () => {
    const responder = laneResponder(laneKnobs({ coldStartIdleMs: 1000 }), { seed: 1 });
    const arrivals = [0, 500, 1400, 2500, 2600];
    for (const [index, at] of arrivals.entries()) await responder.respond(request(index, at));
    assert.deepEqual(
      arrivals.map((_, index) => responder.sampleOf(index)?.traits.cold),
      [false, false, false, true, false],
    );
  });

  test('sampleOf gives the exact script each request was answered with', async () => {
    const responder = laneResponder(laneKnobs(), { seed: 'x' });
    const script = await responder.respond(request(0, 0));
    assert.equal(responder.sampleOf(0)?.script, script);
    assert.equal(responder.sampleOf(1), undefined);
  });
});
