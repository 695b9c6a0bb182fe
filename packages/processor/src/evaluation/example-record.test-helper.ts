import { evaluateLane } from './evaluate-lane.ts';
import { DEFAULT_EVALUATION_CONFIG } from './evaluation-config.ts';
import type { LaneHealth, LaneScorecard } from './lane-health.ts';
import { callsIn, observationOf, simulateLane } from './simulated-calls.ts';

export interface ExampleRecordOptions {
  readonly now?: number;
  readonly ttlS?: number;
  readonly medianS?: number;
  readonly callsPerSecond?: number;
  readonly rateLimited?: number;
  readonly scorecard?: LaneScorecard;
  readonly seed?: number;
}

/** A real record, evaluated from a simulated lane: for tests, documentation and the demo. */
export function exampleRecord(lane: string, options: ExampleRecordOptions = {}): LaneHealth {
  const now = options.now ?? Date.now();
  const calls = simulateLane({
    seed: options.seed ?? 1,
    startMs: now - 300_000,
    endMs: now,
    callsPerSecond: options.callsPerSecond ?? 2,
    medianS: options.medianS ?? 0.4,
    sigma: 0.5,
    rateLimited: () => options.rateLimited ?? 0,
    retryProbability: 0.05,
  });
  return evaluateLane({
    observation: observationOf(lane, callsIn(calls, now, 300), 300, now),
    previous: undefined,
    scorecard: options.scorecard ?? {
      can_hold_secret: true,
      offline_capable: false,
      handoff_s: 0.2,
      rank: 0,
      source: 'lanes_file',
    },
    config: { ...DEFAULT_EVALUATION_CONFIG, recordTtlS: options.ttlS ?? 60 },
    now,
  }).record;
}
