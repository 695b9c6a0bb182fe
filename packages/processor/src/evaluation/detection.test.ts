import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_SCORECARD } from './evaluate-lane.ts';
import { DEFAULT_EVALUATION_CONFIG } from './evaluation-config.ts';
import { replayLane } from './replay.ts';
import { simulateLane } from './simulated-calls.ts';

// The two promises of the state machine, on a simulated clock with seeded randomness: a real change is
// flagged within one window slice plus one evaluation interval; a stable heavy tail never flaps.
const T0 = Date.parse('2026-11-30T08:00:00Z');
const WINDOW_S = 300;
const SLICE_S = 10;
const INTERVAL_S = 10;
const RUN = { windowS: WINDOW_S, sliceS: SLICE_S, intervalS: INTERVAL_S, config: DEFAULT_EVALUATION_CONFIG };

function stateChanges(steps: ReturnType<typeof replayLane>, after: number) {
  return steps.filter((s) => s.at > after && s.stateChanged);
}

describe('detection and hysteresis on a simulated clock', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`keeps a stable heavy-tailed lane (p99/p50 ≈ 3.5) in one state for 10 minutes (seed ${seed})`, () => {
      const calls = simulateLane({
        seed,
        startMs: T0,
        endMs: T0 + (WINDOW_S + 600) * 1000,
        callsPerSecond: 5,
        medianS: 0.5,
        sigma: 0.54,
        rateLimited: () => 0.01,
        failure: () => 0.02,
      });
      const start = T0 + WINDOW_S * 1000;
      const steps = replayLane({
        ...RUN,
        lane: 'stable',
        calls,
        from: start,
        to: start + 600_000,
        scorecard: DEFAULT_SCORECARD,
      });
      assert.equal(steps.length, 61);
      assert.equal(steps[0]?.record.state, 'healthy');
      const tail = steps[0]?.record.tail_ratio ?? 0;
      assert.ok(tail > 2.5 && tail < 5, `tail ratio ${tail}`);
      assert.deepEqual(
        stateChanges(steps, start).map(
          (s) => `${s.at - start} ms → ${s.record.state}: ${s.record.reasons[0]}`,
        ),
        [],
      );
    });
  }

  for (const seed of [11, 12, 13]) {
    it(`flags a lane whose p95 triples within one slice plus one interval (seed ${seed})`, () => {
      const start = T0 + WINDOW_S * 1000;
      const shiftAt = start + 123_456;
      const calls = simulateLane({
        seed,
        startMs: T0,
        endMs: start + 600_000,
        callsPerSecond: 5,
        medianS: 0.5,
        sigma: 0.54,
        slowdown: (t) => (t >= shiftAt ? 3 : 1),
      });
      const steps = replayLane({
        ...RUN,
        lane: 'slowing',
        calls,
        from: start,
        to: start + 600_000,
        scorecard: DEFAULT_SCORECARD,
      });
      const changes = stateChanges(steps, start);
      const flagged = changes[0];
      assert.ok(flagged, 'the slowdown was flagged');
      assert.equal(flagged.record.state, 'degraded');
      assert.ok(
        flagged.at <= shiftAt + (SLICE_S + INTERVAL_S) * 1000,
        `flagged ${flagged.at - shiftAt} ms after`,
      );
      assert.equal(changes.length, 1, 'and stays flagged while the slowdown lasts');
      assert.ok(
        flagged.record.reasons.some((r) => /p95 time_to_\w+ [\d.]+ s against [\d.]+× baseline/.test(r)),
      );
    });
  }

  it('flags a p95 that triples even without a newest-slice view, after the enter evaluations', () => {
    const start = T0 + WINDOW_S * 1000;
    const shiftAt = start + 60_000;
    const calls = simulateLane({
      seed: 21,
      startMs: T0,
      endMs: start + 600_000,
      callsPerSecond: 5,
      medianS: 0.5,
      sigma: 0.54,
      slowdown: (t) => (t >= shiftAt ? 3 : 1),
    });
    const steps = replayLane({
      ...RUN,
      sliceS: 0,
      lane: 'x',
      calls,
      from: start,
      to: start + 600_000,
      scorecard: DEFAULT_SCORECARD,
    });
    const flagged = stateChanges(steps, start)[0];
    assert.equal(flagged?.record.state, 'degraded');
    assert.ok((flagged?.at ?? Infinity) - shiftAt <= 120_000);
  });

  it('returns to healthy only after the leave evaluations once the slowdown ends, without flapping', () => {
    const start = T0 + WINDOW_S * 1000;
    const calls = simulateLane({
      seed: 31,
      startMs: T0,
      endMs: start + 1_500_000,
      callsPerSecond: 5,
      medianS: 0.5,
      sigma: 0.54,
      slowdown: (t) => (t >= start + 60_000 && t < start + 240_000 ? 3 : 1),
    });
    const steps = replayLane({
      ...RUN,
      lane: 'x',
      calls,
      from: start,
      to: start + 1_500_000,
      scorecard: DEFAULT_SCORECARD,
    });
    assert.deepEqual(
      stateChanges(steps, start).map((s) => s.record.state),
      ['degraded', 'healthy'],
    );
  });

  it('calls a burst of 429s saturated at once and switches hedging off', () => {
    const start = T0 + WINDOW_S * 1000;
    const burstAt = start + 50_000;
    const calls = simulateLane({
      seed: 41,
      startMs: T0,
      endMs: start + 200_000,
      callsPerSecond: 5,
      medianS: 0.5,
      sigma: 0.54,
      rateLimited: (t) => (t >= burstAt ? 0.5 : 0),
    });
    const steps = replayLane({
      ...RUN,
      lane: 'x',
      calls,
      from: start,
      to: start + 200_000,
      scorecard: DEFAULT_SCORECARD,
    });
    const flagged = stateChanges(steps, start)[0];
    assert.equal(flagged?.record.state, 'saturated');
    assert.ok((flagged?.at ?? Infinity) - burstAt <= (SLICE_S + INTERVAL_S) * 1000);
    assert.equal(flagged?.record.hedge.allowed, false);
  });
});
