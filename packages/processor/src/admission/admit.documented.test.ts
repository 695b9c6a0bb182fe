import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import { type LaneHealth, viewOf } from '../evaluation/lane-health.ts';
import { admit } from './admit.ts';

const NOW = Date.parse('2026-11-30T08:00:00Z');

describe('admit, as the README documents it', () => {
  it('passes over a lane with no expected cost (no_expected_cost), however healthy, and never guesses one', () => {
    const base = exampleRecord('base', { now: NOW });
    const noCost: LaneHealth = { ...base, lane: 'no-cost', state: 'healthy', expected_cost_s: null };
    const known: LaneHealth = { ...base, lane: 'known', state: 'healthy', expected_cost_s: 3 };
    const decision = admit({ id: 'j', deadline_s: 10 }, [viewOf(noCost, NOW), viewOf(known, NOW)]);
    assert.equal(decision.lane, 'known');
    assert.deepEqual(
      decision.considered.map((c) => [c.lane, c.rejected ?? null, c.expected_cost_s]),
      [
        ['no-cost', 'no_expected_cost', null],
        ['known', null, 3],
      ],
    );
    assert.equal(
      admit({ id: 'j', deadline_s: 10 }, [viewOf(noCost, NOW)]).reason,
      'refused: no eligible lane of 1',
    );

    // A job costed on first text, where the lane has fewer than min_samples successful first texts.
    const text = base.quantiles.time_to_first_text;
    assert.ok(text);
    const fewTexts: LaneHealth = {
      ...known,
      quantiles: { ...base.quantiles, time_to_first_text: { ...text, samples: base.min_samples - 1 } },
    };
    const onText = admit({ id: 'j', deadline_s: 10, milestone: 'first_text' }, [viewOf(fewTexts, NOW)]);
    assert.equal(onText.admitted, false);
    assert.equal(onText.considered[0]?.rejected, 'no_expected_cost');
  });
});
