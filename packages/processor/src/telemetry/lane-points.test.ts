import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MILESTONES } from '@lanewatch/instrumentation/names';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import { LANE_STATES, type LaneHealth, severity } from '../evaluation/lane-health.ts';
import {
  PROCESSOR_INSTRUMENT,
  type QUANTILES,
  RATES,
  STATE_CODE,
  TELEMETRY_ATTR,
} from './instrument-names.ts';
import { type LanePoint, lanePointsOf, milestoneOfKey } from './lane-points.ts';

const T0 = Date.parse('2026-11-30T08:00:00Z');

function pick(points: readonly LanePoint[], instrument: LanePoint['instrument']) {
  return points.filter((p) => p.instrument === instrument);
}

describe('lanePointsOf', () => {
  it('gives one state series per state, 1 for the current one, and the state code', () => {
    for (const state of LANE_STATES) {
      const record: LaneHealth = { ...exampleRecord('fast', { now: T0 }), state };
      const points = lanePointsOf(record);
      const states = pick(points, 'laneState');
      assert.deepEqual(
        states.map((p) => [p.attributes[TELEMETRY_ATTR.state], p.value]),
        LANE_STATES.map((s) => [s, s === state ? 1 : 0]),
      );
      assert.deepEqual(
        pick(points, 'laneStateCode').map((p) => p.value),
        [STATE_CODE[state]],
      );
      assert.equal(STATE_CODE[state], severity(state), 'the code orders states as the evaluation does');
    }
  });

  it('reports every quantile, cutoff and hint of the record under the milestone words', () => {
    const record = exampleRecord('openai/gpt-x', { now: T0, rateLimited: 0.01 });
    const points = lanePointsOf(record);
    assert.ok(points.every((p) => p.attributes[TELEMETRY_ATTR.lane] === 'openai/gpt-x'));
    const quantiles = pick(points, 'laneQuantile');
    assert.ok(quantiles.length > 0);
    for (const point of quantiles) {
      const milestone = point.attributes[TELEMETRY_ATTR.milestone] as string;
      const q = point.attributes[TELEMETRY_ATTR.quantile] as (typeof QUANTILES)[number];
      assert.ok((MILESTONES as readonly string[]).includes(milestone), milestone);
      const key = Object.keys(record.quantiles).find((k) => milestoneOfKey(k) === milestone) ?? '';
      assert.equal(point.value, record.quantiles[key]?.[q]);
    }
    assert.equal(quantiles.length, Object.keys(record.quantiles).length * 3);
    assert.deepEqual(
      pick(points, 'laneCutoff').map((p) => [p.attributes[TELEMETRY_ATTR.milestone], p.value]),
      [
        ['first_output', record.cutoffs.first_output_s],
        ['end', record.cutoffs.total_s],
      ],
    );
    assert.deepEqual(
      pick(points, 'laneRate').map((p) => [p.attributes[TELEMETRY_ATTR.rate], p.value]),
      RATES.map((r) => [r, record.rates[r]]),
    );
    assert.ok(record.rates.rate_limited > 0);
    assert.deepEqual(
      pick(points, 'laneExpectedCost').map((p) => [p.attributes[TELEMETRY_ATTR.milestone], p.value]),
      [['end', record.expected_cost_s]],
    );
    assert.deepEqual(
      pick(points, 'laneHedgeDelay').map((p) => [p.attributes[TELEMETRY_ATTR.milestone], p.value]),
      [[milestoneOfKey(record.hedge.milestone), record.hedge.after_s]],
    );
    assert.deepEqual(pick(points, 'laneHedgeAllowed')[0]?.value, record.hedge.allowed ? 1 : 0);
    assert.deepEqual(pick(points, 'laneSamples')[0]?.value, record.samples);
  });

  it('has no point for what the record does not know, never a 0', () => {
    const unknown: LaneHealth = {
      ...exampleRecord('idle', { now: T0 }),
      state: 'unknown',
      samples: 0,
      quantiles: {},
      tail_ratio: null,
      tail_ratio_milestone: null,
      cutoffs: { first_output_s: null, total_s: null },
      hedge: { after_s: null, allowed: false, milestone: null },
      expected_cost_s: null,
    };
    const points = lanePointsOf(unknown);
    for (const instrument of [
      'laneQuantile',
      'laneMilestoneSamples',
      'laneTailRatio',
      'laneCutoff',
      'laneHedgeDelay',
      'laneExpectedCost',
    ] as const) {
      assert.deepEqual(pick(points, instrument), [], instrument);
    }
    assert.equal(pick(points, 'laneSamples')[0]?.value, 0);
    assert.equal(pick(points, 'laneHedgeAllowed')[0]?.value, 0);
  });

  it('carries only the declared attributes, with the lane name, fixed words and numbers', () => {
    const record = exampleRecord('fast', { now: T0 });
    assert.ok(record.reasons.length > 0 && record.models.length > 0);
    for (const point of lanePointsOf(record)) {
      const declared: readonly string[] = PROCESSOR_INSTRUMENT[point.instrument].attributes;
      assert.deepEqual(Object.keys(point.attributes).sort(), [...declared].sort(), point.instrument);
      const text = JSON.stringify(point.attributes);
      for (const leak of [...record.reasons, ...record.models, ...record.providers]) {
        assert.ok(!text.includes(leak), `${point.instrument} carries ${leak}`);
      }
    }
  });
});
