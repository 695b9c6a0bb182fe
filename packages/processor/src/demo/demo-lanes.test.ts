import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { laneProfile } from '@lanewatch/simulator';
import { laneMapOf, parseLanesFile, scorecardOf } from '../lanes-file/lanes-file.ts';
import { DEMO_LANES, demoLaneKnobs, demoLanesYaml } from './demo-lanes.ts';

describe('demo lanes', () => {
  it("keeps a lane's own knob changes when scaling, and covers five wire formats", () => {
    const spiky = DEMO_LANES.find((l) => l.lane === 'spiky');
    assert.ok(spiky?.knobs);
    const knobs = laneProfile('spiky', demoLaneKnobs(spiky, 0.5)).knobs;
    assert.equal(knobs.stallProbability, 0.1);
    assert.equal(knobs.headersMedianMs, 120);
    assert.equal(new Set(DEMO_LANES.map((l) => l.format)).size, 5);
  });

  it('writes a lanes file that the processor reads: scorecards, match URLs, budgets at the time scale', () => {
    const lanes = DEMO_LANES.map((demo, i) => ({ demo, url: `http://127.0.0.1:${9000 + i}` }));
    const file = parseLanesFile(demoLanesYaml(lanes, 0.5, 40), 'demo');
    assert.equal(file.lanes.size, DEMO_LANES.length);
    assert.deepEqual(laneMapOf(file).steady, ['http://127.0.0.1:9000']);
    assert.equal(scorecardOf(file, 'spiky').can_hold_secret, true);
    assert.equal(scorecardOf(file, 'steady').handoff_s, 0.05);
    assert.equal(file.defaults.minSamples, 40);
    assert.equal(file.defaults.p95BudgetS?.first_output, 0.75);
  });
});
