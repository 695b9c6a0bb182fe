import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SCORECARD, evaluateLane } from './evaluate-lane.ts';
import { DEFAULT_EVALUATION_CONFIG, type LaneEvaluationConfig } from './evaluation-config.ts';
import type { LaneScorecard } from './lane-health.ts';
import { memoryFromRecord } from './lane-memory.ts';
import { callsIn, observationOf, type SimulatedCall, simulateLane } from './simulated-calls.ts';

const T0 = Date.parse('2026-11-30T08:00:00Z');
const SCORECARD: LaneScorecard = {
  can_hold_secret: true,
  offline_capable: false,
  handoff_s: 0.2,
  rank: 0,
  source: 'lanes_file',
};

function lane(calls: SimulatedCall[], end = T0 + 300_000) {
  return observationOf('fast', callsIn(calls, end, 300), 300, end);
}

function steady(overrides: Partial<Parameters<typeof simulateLane>[0]> = {}) {
  return simulateLane({
    seed: 7,
    startMs: T0,
    endMs: T0 + 300_000,
    callsPerSecond: 5,
    medianS: 0.4,
    sigma: 0.54,
    ...overrides,
  });
}

function evaluate(
  calls: SimulatedCall[],
  config: LaneEvaluationConfig = DEFAULT_EVALUATION_CONFIG,
  scorecard = SCORECARD,
) {
  return evaluateLane({
    observation: lane(calls),
    previous: undefined,
    scorecard,
    config,
    now: T0 + 300_000,
  });
}

describe('evaluateLane', () => {
  it('reports unknown, and how many samples it has, below min_samples', () => {
    const { record } = evaluate(steady({ callsPerSecond: 0.1 }));
    assert.equal(record.state, 'unknown');
    assert.ok(record.samples < 50);
    assert.match(
      record.reasons[0] ?? '',
      new RegExp(`^${record.samples} samples, fewer than min_samples 50$`),
    );
    assert.equal(record.hedge.allowed, false);
    assert.equal(record.expected_cost_s, null);
    assert.deepEqual(record.cutoffs, { first_output_s: null, total_s: null });
  });

  it('reports quantiles of every milestone under the shared keys, and the hints derived from them', () => {
    const calls = steady({ retryProbability: 0.1 });
    const { record } = evaluate(calls);
    assert.equal(record.state, 'healthy');
    assert.deepEqual(Object.keys(record.quantiles).sort(), [
      'duration',
      'time_to_first_chunk',
      'time_to_first_output',
      'time_to_first_text',
      'time_to_headers',
    ]);
    const fo = record.quantiles.time_to_first_output;
    const end = record.quantiles.duration;
    assert.ok(fo && end);
    assert.ok(fo.p50 < fo.p95 && fo.p95 < fo.p99);
    assert.equal(record.tail_ratio_milestone, 'time_to_first_output');
    assert.ok(Math.abs((record.tail_ratio ?? 0) - fo.p99 / fo.p50) < 1e-3);
    assert.equal(record.hedge.milestone, 'time_to_first_output');
    assert.equal(record.hedge.after_s, fo.p95);
    assert.equal(record.hedge.allowed, true);
    assert.ok(Math.abs((record.cutoffs.first_output_s ?? 0) - 1.5 * fo.p95) < 1e-5);
    assert.ok(Math.abs((record.cutoffs.total_s ?? 0) - 1.5 * end.p95) < 1e-5);
    const expected = end.p95 * (1 + record.rates.retry) + 0.2;
    assert.ok(Math.abs((record.expected_cost_s ?? 0) - expected) < 1e-5);
    assert.equal(record.expected_cost_milestone, 'duration');
    assert.ok(record.rates.retry > 0.05 && record.rates.retry < 0.15);
    assert.ok((record.output_tokens_per_second?.p50 ?? 0) > 0);
    assert.deepEqual(record.scorecard, SCORECARD);
    assert.equal(record.updated_at, '2026-11-30T08:05:00.000Z');
    assert.equal(record.expires_at, '2026-11-30T08:06:00.000Z');
  });

  it('floors the cutoffs', () => {
    const { record } = evaluate(steady({ medianS: 0.01 }));
    assert.equal(record.cutoffs.first_output_s, 0.25);
    assert.ok((record.cutoffs.total_s ?? 0) >= 1);
  });

  it('takes latency from successful calls only: fast 429s never make a lane look fast', () => {
    const clean = evaluate(steady()).record;
    const limited = evaluate(steady({ rateLimited: () => 0.3 })).record;
    const ratio = (limited.quantiles.time_to_headers?.p50 ?? 0) / (clean.quantiles.time_to_headers?.p50 ?? 1);
    assert.ok(ratio > 0.8 && ratio < 1.25, `headers p50 moved by ${ratio}`);
  });

  it('calls a lane with many 429s saturated and forbids hedging', () => {
    const { record } = evaluate(steady({ rateLimited: () => 0.2 }));
    assert.equal(record.state, 'saturated');
    assert.equal(record.hedge.allowed, false);
    assert.ok(record.reasons.some((r) => r.startsWith('rate_limited rate 0.')));
  });

  it('forbids hedging on the first sign of 429s, before the state moves', () => {
    const { record } = evaluate(steady({ rateLimited: () => 0.03 }));
    assert.equal(record.state, 'healthy');
    assert.equal(record.hedge.allowed, false);
    assert.ok(record.reasons.includes('no hedging while 429s are seen'));
  });

  it('calls a lane down when failures dominate, not saturated', () => {
    const { record } = evaluate(steady({ failure: () => 0.7 }));
    assert.equal(record.state, 'down');
    assert.equal(record.hedge.allowed, false);
  });

  it('calls a lane over its configured p95 budget degraded', () => {
    const config = { ...DEFAULT_EVALUATION_CONFIG, p95BudgetS: { first_output: 0.5 } };
    const { record } = evaluate(steady(), config);
    assert.equal(record.state, 'degraded');
    assert.equal(record.hedge.allowed, true);
    assert.ok(record.reasons.some((r) => r.includes('against budget 0.5 s')));
  });

  it('gives an unconfigured lane the default scorecard, never a favourable one', () => {
    const { record } = evaluate(steady(), DEFAULT_EVALUATION_CONFIG, DEFAULT_SCORECARD);
    assert.equal(record.scorecard.can_hold_secret, false);
    assert.equal(record.scorecard.source, 'default');
  });

  it('keeps reasons to numbers and the shared vocabulary', () => {
    const { record } = evaluate(steady({ rateLimited: () => 0.2, retryProbability: 0.1 }));
    for (const reason of record.reasons) assert.match(reason, /^[\w .,:;×()+=%-]+$/, reason);
  });

  it('resumes from a stored record: same state, same start, same baseline', () => {
    const calls = steady();
    const first = evaluate(calls);
    const memory = memoryFromRecord(first.record);
    assert.equal(memory.state, 'healthy');
    assert.ok(
      Math.abs((memory.baselines.first_output ?? 0) - (first.memory.baselines.first_output ?? 1)) < 1e-5,
    );
    const next = evaluateLane({
      observation: lane(calls),
      previous: memory,
      scorecard: SCORECARD,
      config: DEFAULT_EVALUATION_CONFIG,
      now: T0 + 310_000,
    });
    assert.equal(next.stateChanged, false);
    assert.equal(next.record.state_since, first.record.state_since);
  });
});
