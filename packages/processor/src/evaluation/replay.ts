import { evaluateLane } from './evaluate-lane.ts';
import type { LaneEvaluationConfig } from './evaluation-config.ts';
import type { LaneHealth, LaneScorecard } from './lane-health.ts';
import type { LaneMemory } from './lane-memory.ts';
import { callsIn, observationOf, type SimulatedCall } from './simulated-calls.ts';

export interface ReplayOptions {
  readonly lane: string;
  readonly calls: readonly SimulatedCall[];
  /** Epoch ms of the first and last evaluation. */
  readonly from: number;
  readonly to: number;
  readonly intervalS: number;
  readonly windowS: number;
  /** Length of the "newest slice" view handed to the evaluation as `recent`; 0 for none. */
  readonly sliceS: number;
  readonly config: LaneEvaluationConfig;
  readonly scorecard: LaneScorecard;
}

export interface ReplayStep {
  readonly at: number;
  readonly record: LaneHealth;
  readonly stateChanged: boolean;
}

/** Evaluates a lane on a simulated clock, as the evaluation loop would: a tool for tests and benchmarks. */
export function replayLane(options: ReplayOptions): ReplayStep[] {
  const steps: ReplayStep[] = [];
  let memory: LaneMemory | undefined;
  for (let at = options.from; at <= options.to; at += options.intervalS * 1000) {
    const observation = observationOf(
      options.lane,
      callsIn(options.calls, at, options.windowS),
      options.windowS,
      at,
    );
    const recent =
      options.sliceS > 0
        ? observationOf(options.lane, callsIn(options.calls, at, options.sliceS), options.sliceS, at)
        : undefined;
    const evaluation = evaluateLane({
      observation,
      recent,
      previous: memory,
      scorecard: options.scorecard,
      config: options.config,
      now: at,
    });
    memory = evaluation.memory;
    steps.push({ at, record: evaluation.record, stateChanged: evaluation.stateChanged });
  }
  return steps;
}
