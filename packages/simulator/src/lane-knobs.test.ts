import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_KNOBS, LaneKnobError, laneKnobs, scaledKnobs } from './lane-knobs.ts';
import { laneProfile, PROFILE_NAMES } from './lane-profiles.ts';

describe('lane knobs', () => {
  test('defaults fill what is not given', () => {
    assert.deepEqual(laneKnobs(), DEFAULT_KNOBS);
    assert.equal(laneKnobs({ headersMedianMs: 90 }).headersMedianMs, 90);
  });

  test('a bad knob is named, with what it must be', () => {
    assert.throws(() => laneKnobs({ stallProbability: 1.5 }, 'lane "x"'), {
      name: 'LaneKnobError',
      message: 'lane "x": "stallProbability" must be a probability from 0 to 1, got 1.5',
    });
    assert.throws(
      () => laneKnobs({ outputTokensMin: 50, outputTokensMax: 10 }),
      /"outputTokensMax" must be an integer ≥ outputTokensMin \(50\)/,
    );
    assert.throws(() => laneKnobs({ headersMedianMs: 0 }), /"headersMedianMs" must be a number above 0/);
    assert.throws(
      () => laneKnobs({ rateLimitBurstLength: 0 }),
      /"rateLimitBurstLength" must be an integer ≥ 1/,
    );
    assert.throws(
      () => laneKnobs({ actionKind: 'dance' as 'reasoning' }),
      /"actionKind" must be "reasoning" or "tool-call"/,
    );
  });

  test('an unknown knob is refused with the list of knobs', () => {
    assert.throws(
      () => laneKnobs({ headersMs: 1 } as never),
      (error) => {
        assert.ok(error instanceof LaneKnobError);
        assert.match(error.message, /unknown knob "headersMs" \(knobs: headersMedianMs, /);
        return true;
      },
    );
  });

  test('every named profile is valid; an unknown one lists the names', () => {
    for (const name of PROFILE_NAMES) assert.equal(laneProfile(name).name, name);
    assert.throws(() => laneProfile('speedy'), /unknown lane profile "speedy" \(profiles: steady, spiky, /);
    assert.equal(laneProfile('spiky', { stallProbability: 0 }).knobs.stallProbability, 0);
  });

  test('scales every duration, the speed inversely and retry-after, and nothing else', () => {
    const knobs = laneProfile('thinker').knobs;
    const half = { ...knobs, ...scaledKnobs(knobs, 0.5) };
    assert.equal(half.headersMedianMs, knobs.headersMedianMs / 2);
    assert.equal(half.actionLeadMedianMs, knobs.actionLeadMedianMs / 2);
    assert.equal(half.tokensPerSecondMedian, knobs.tokensPerSecondMedian * 2);
    assert.equal(half.retryAfterSeconds, knobs.retryAfterSeconds / 2);
    assert.equal(half.headersSigma, knobs.headersSigma);
    assert.equal(half.actionProbability, knobs.actionProbability);
    assert.equal(half.outputTokensMax, knobs.outputTokensMax);
  });
});
