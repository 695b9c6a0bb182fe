import { OUTCOMES, type Outcome } from '@lanewatch/instrumentation/names';
import { evaluateLane } from '../evaluation/evaluate-lane.ts';
import type { LaneEvaluationConfig } from '../evaluation/evaluation-config.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { type LaneMemory, memoryFromRecord } from '../evaluation/lane-memory.ts';
import type { LaneFeed } from '../feed/lane-feed.ts';
import type { LaneObservation } from '../lane-observation.ts';
import { evaluationConfigOf, type LanesFile, scorecardOf } from '../lanes-file/lanes-file.ts';
import type { LaneHealthStore } from '../store/lane-health-store.ts';
import type { LaneObservationSource } from './observation-source.ts';

export interface EvaluationLoopOptions {
  readonly source: LaneObservationSource;
  readonly lanes: LanesFile;
  readonly config: LaneEvaluationConfig;
  readonly store: LaneHealthStore;
  readonly feed: LaneFeed;
  readonly intervalS: number;
  /** Window length reported for configured lanes that have had no calls at all. */
  readonly windowS: number;
  readonly now?: () => number;
  /** Told when a round fails unexpectedly; the loop goes on. */
  readonly onError?: (error: unknown) => void;
  /** Told after each round (for the processor's own metrics and logs). */
  readonly onRound?: (records: readonly LaneHealth[], stateChanges: number) => void;
}

export interface EvaluationLoop {
  /** Evaluates every lane now, writes the store, publishes the feed; resolves to the records. */
  evaluateNow(): Promise<LaneHealth[]>;
  start(): void;
  /** Stops the timer and waits for a round in flight. */
  stop(): Promise<void>;
  readonly lastRoundAt: number | undefined;
}

function emptyObservation(lane: string, windowS: number, now: number): LaneObservation {
  return {
    lane,
    sizeClass: undefined,
    windowSeconds: windowS,
    windowEnd: now,
    ok: {},
    all: {},
    calls: 0,
    outcomes: Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>,
    errorTypes: {},
    retries: 0,
    outputTokensPerSecond: undefined,
    models: [],
    providers: [],
  };
}

/**
 * windows → evaluation → store + feed, every `intervalS`. Each lane's memory (hysteresis, baseline)
 * is seeded from the store's records, so a restart resumes rather than relearns. Lanes named in the
 * lanes file get a record even before their first call (`unknown`, 0 samples).
 */
export async function createEvaluationLoop(options: EvaluationLoopOptions): Promise<EvaluationLoop> {
  const now = options.now ?? Date.now;
  const memories = new Map<string, LaneMemory>();
  for (const record of await options.store.readAll()) memories.set(record.lane, memoryFromRecord(record));
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<LaneHealth[]> | undefined;
  let lastRoundAt: number | undefined;

  function round(): LaneHealth[] {
    const at = now();
    const observed = new Map<string, { window: LaneObservation; recent?: LaneObservation | undefined }>();
    for (const lane of options.source.observe(at)) {
      if (lane.window.sizeClass === undefined) observed.set(lane.window.lane, lane);
    }
    for (const name of options.lanes.lanes.keys()) {
      if (!observed.has(name)) observed.set(name, { window: emptyObservation(name, options.windowS, at) });
    }
    const records: LaneHealth[] = [];
    let stateChanges = 0;
    for (const [lane, { window, recent }] of observed) {
      const evaluation = evaluateLane({
        observation: window,
        recent,
        previous: memories.get(lane),
        scorecard: scorecardOf(options.lanes, lane),
        config: evaluationConfigOf(options.lanes, lane, options.config),
        now: at,
      });
      memories.set(lane, evaluation.memory);
      records.push(evaluation.record);
      if (evaluation.stateChanged) stateChanges += 1;
    }
    lastRoundAt = at;
    options.onRound?.(records, stateChanges);
    return records;
  }

  async function evaluateNow(): Promise<LaneHealth[]> {
    if (running) await running.catch(() => undefined);
    running = (async () => {
      const records = round();
      options.feed.publish(records);
      await options.store.write(records);
      return records;
    })();
    try {
      return await running;
    } finally {
      running = undefined;
    }
  }

  return {
    evaluateNow,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return; // a slow round is not stacked on
        evaluateNow().catch((error: unknown) => options.onError?.(error));
      }, options.intervalS * 1000);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
    get lastRoundAt() {
      return lastRoundAt;
    },
  };
}
