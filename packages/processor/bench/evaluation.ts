// Lane evaluation: (1) the time to evaluate 100 lanes whose distributions are 160-bucket exponential
// histograms, against two baselines in the same run — reading the 15 quantiles of every lane (the
// least any evaluation must do) and serialising the 100 records (what writing them costs anyway);
// (2) detection on a simulated clock with seeded randomness — a lane whose p95 triples must be flagged
// within one window slice plus one evaluation interval, and a stable heavy-tailed lane must make no
// state change over 10 simulated minutes. Exits 1 if either property fails.
//
//   node --conditions=lanewatch-source packages/processor/bench/evaluation.ts

import { MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import { DEFAULT_SCORECARD, evaluateLane } from '../src/evaluation/evaluate-lane.ts';
import { DEFAULT_EVALUATION_CONFIG } from '../src/evaluation/evaluation-config.ts';
import type { LaneHealth } from '../src/evaluation/lane-health.ts';
import type { LaneMemory } from '../src/evaluation/lane-memory.ts';
import { replayLane } from '../src/evaluation/replay.ts';
import { callsIn, observationOf, simulateLane } from '../src/evaluation/simulated-calls.ts';
import { histogramOf } from '../src/histogram/exponential-histogram.ts';
import { HistogramDistribution } from '../src/histogram/histogram-distribution.ts';
import type { Distribution, LaneObservation } from '../src/lane-observation.ts';

const LANES = 100;
const ROUNDS = 200;
const WINDOW_S = 300;
const SLICE_S = 10;
const INTERVAL_S = 10;
const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

/** The simulated observation with every distribution turned into a 160-bucket exponential histogram. */
function asHistograms(observation: LaneObservation): LaneObservation {
  const convert = (d: Distribution | undefined): Distribution | undefined => {
    if (!d || d.count === 0) return d;
    const values: number[] = [];
    for (let i = 0; i < d.count; i++) values.push(d.quantile(d.count === 1 ? 0 : i / (d.count - 1)) ?? 0);
    return new HistogramDistribution(histogramOf(values));
  };
  const map = (m: Partial<Record<Milestone, Distribution>>) => {
    const out: Partial<Record<Milestone, Distribution>> = {};
    for (const milestone of MILESTONES) {
      const d = convert(m[milestone]);
      if (d) out[milestone] = d;
    }
    return out;
  };
  return {
    ...observation,
    ok: map(observation.ok),
    all: map(observation.all),
    outputTokensPerSecond: convert(observation.outputTokensPerSecond),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function timeRounds(run: () => void): number {
  const samples: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

// (1) Evaluation time for 100 lanes.
const lanes = Array.from({ length: LANES }, (_, i) => {
  const calls = simulateLane({
    seed: i + 1,
    startMs: T0 - WINDOW_S * 1000,
    endMs: T0,
    callsPerSecond: 2 + (i % 5),
    medianS: 0.2 + (i % 10) * 0.1,
    sigma: 0.5,
    rateLimited: () => (i % 7 === 0 ? 0.04 : 0.005),
    retryProbability: 0.03,
  });
  return {
    window: asHistograms(observationOf(`lane-${i}`, callsIn(calls, T0, WINDOW_S), WINDOW_S, T0)),
    recent: asHistograms(observationOf(`lane-${i}`, callsIn(calls, T0, SLICE_S), SLICE_S, T0)),
  };
});
const memories = new Map<string, LaneMemory>();
let records: LaneHealth[] = [];
const evaluateAll = () => {
  records = lanes.map(({ window, recent }) => {
    const evaluation = evaluateLane({
      observation: window,
      recent,
      previous: memories.get(window.lane),
      scorecard: DEFAULT_SCORECARD,
      config: DEFAULT_EVALUATION_CONFIG,
      now: T0,
    });
    memories.set(window.lane, evaluation.memory);
    return evaluation.record;
  });
};
let sink = 0;
const readQuantiles = () => {
  for (const { window } of lanes) {
    for (const milestone of MILESTONES) {
      const d = window.ok[milestone];
      if (!d) continue;
      sink += (d.quantile(0.5) ?? 0) + (d.quantile(0.95) ?? 0) + (d.quantile(0.99) ?? 0);
    }
  }
};
const serialise = () => {
  sink += JSON.stringify(records).length;
};
evaluateAll(); // warm-up, and the memory every later round starts from
const evaluationMs = timeRounds(evaluateAll);
const quantilesMs = timeRounds(readQuantiles);
const serialiseMs = timeRounds(serialise);
console.log(`evaluation of ${LANES} lanes (160-bucket exponential histograms), median of ${ROUNDS} rounds:`);
console.log(`  evaluate                 ${evaluationMs.toFixed(2)} ms per round`);
console.log(
  `  baseline: read 15 quantiles per lane   ${quantilesMs.toFixed(2)} ms  → evaluation is ${(evaluationMs / quantilesMs).toFixed(1)}×`,
);
console.log(
  `  baseline: JSON.stringify the records   ${serialiseMs.toFixed(2)} ms  → evaluation is ${(evaluationMs / serialiseMs).toFixed(1)}×`,
);
console.log(
  `  share of a ${INTERVAL_S} s evaluation interval: ${((evaluationMs / (INTERVAL_S * 1000)) * 100).toFixed(3)} %`,
);

// (2) Detection delay and flapping on a simulated clock.
const bound = (SLICE_S + INTERVAL_S) * 1000;
const run = {
  windowS: WINDOW_S,
  sliceS: SLICE_S,
  intervalS: INTERVAL_S,
  config: DEFAULT_EVALUATION_CONFIG,
  scorecard: DEFAULT_SCORECARD,
};
const start = T0 + WINDOW_S * 1000;
const delays: number[] = [];
let missed = 0;
let flaps = 0;
const SEEDS = 20;
for (let seed = 1; seed <= SEEDS; seed++) {
  const shiftAt = start + 60_000 + seed * 1_337;
  const slowing = simulateLane({
    seed: 1000 + seed,
    startMs: T0,
    endMs: start + 300_000,
    callsPerSecond: 5,
    medianS: 0.5,
    sigma: 0.54,
    slowdown: (t) => (t >= shiftAt ? 3 : 1),
  });
  const flagged = replayLane({
    ...run,
    lane: 'slowing',
    calls: slowing,
    from: start,
    to: start + 300_000,
  }).find((s) => s.at > start && s.stateChanged);
  if (flagged && flagged.record.state === 'degraded') delays.push(flagged.at - shiftAt);
  else missed += 1;

  const stable = simulateLane({
    seed: 2000 + seed,
    startMs: T0,
    endMs: start + 600_000,
    callsPerSecond: 5,
    medianS: 0.5,
    sigma: 0.54,
    rateLimited: () => 0.01,
    failure: () => 0.02,
  });
  flaps += replayLane({ ...run, lane: 'stable', calls: stable, from: start, to: start + 600_000 }).filter(
    (s) => s.at > start && s.stateChanged,
  ).length;
}
const worst = Math.max(...delays, 0);
console.log(
  `detection, ${SEEDS} seeds, 5 calls/s, p99/p50 ≈ 3.5, window ${WINDOW_S} s in ${SLICE_S} s slices, evaluation every ${INTERVAL_S} s:`,
);
console.log(
  `  p95 triples → degraded after median ${(median(delays) / 1000).toFixed(1)} s, worst ${(worst / 1000).toFixed(1)} s (bound ${bound / 1000} s), missed ${missed}`,
);
console.log(`  stable heavy-tailed lane, 10 simulated minutes: ${flaps} state changes over ${SEEDS} runs`);
if (sink < 0) console.log(sink);
const ok = missed === 0 && worst <= bound && flaps === 0;
console.log(ok ? 'detection properties hold' : 'DETECTION PROPERTIES FAILED');
process.exit(ok ? 0 : 1);
