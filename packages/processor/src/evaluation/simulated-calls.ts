import { MILESTONES, type Milestone, OUTCOMES, type Outcome } from '@lanewatch/instrumentation/names';
import type { Distribution, LaneObservation } from '../lane-observation.ts';
import { exactDistribution } from './exact-distribution.ts';

/** One call as the instrumentation would have measured it; for tests, benchmarks and the demo. */
export interface SimulatedCall {
  /** Epoch ms the call ended. */
  readonly at: number;
  readonly outcome: Outcome;
  readonly errorType?: string | undefined;
  readonly attempt: number;
  /** Seconds from dispatch; a milestone that did not happen is absent. */
  readonly milestones: Readonly<Partial<Record<Milestone, number>>>;
  readonly outputTokensPerSecond?: number | undefined;
}

/** Deterministic PRNG (mulberry32): the same seed gives the same run on every machine. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Log-normal sample with the given median and σ of the log (σ 0.54: p99/p50 ≈ 3.5, a real LLM tail). */
export function logNormal(random: () => number, median: number, sigma: number): number {
  const u = Math.max(random(), Number.MIN_VALUE);
  const v = random();
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return median * Math.exp(sigma * z);
}

function push(into: Partial<Record<Milestone, number[]>>, milestone: Milestone, value: number): void {
  const values = into[milestone];
  if (values) values.push(value);
  else into[milestone] = [value];
}

/** The `LaneObservation` that aggregation would produce from these calls (exact distributions). */
export function observationOf(
  lane: string,
  calls: readonly SimulatedCall[],
  windowSeconds: number,
  windowEnd: number,
): LaneObservation {
  const ok: Partial<Record<Milestone, number[]>> = {};
  const all: Partial<Record<Milestone, number[]>> = {};
  const outcomes = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  const errorTypes: Record<string, number> = {};
  const tokens: number[] = [];
  let retries = 0;
  for (const call of calls) {
    outcomes[call.outcome] += 1;
    if (call.errorType) errorTypes[call.errorType] = (errorTypes[call.errorType] ?? 0) + 1;
    if (call.attempt > 1) retries += 1;
    if (call.outputTokensPerSecond !== undefined) tokens.push(call.outputTokensPerSecond);
    for (const milestone of MILESTONES) {
      const value = call.milestones[milestone];
      if (value === undefined) continue;
      push(all, milestone, value);
      if (call.outcome === 'ok') push(ok, milestone, value);
    }
  }
  const distributions = (samples: Partial<Record<Milestone, number[]>>) => {
    const out: Partial<Record<Milestone, Distribution>> = {};
    for (const milestone of MILESTONES) {
      const values = samples[milestone];
      if (values) out[milestone] = exactDistribution(values);
    }
    return out;
  };
  return {
    lane,
    sizeClass: undefined,
    windowSeconds,
    windowEnd,
    ok: distributions(ok),
    all: distributions(all),
    calls: calls.length,
    outcomes,
    errorTypes,
    retries,
    outputTokensPerSecond: tokens.length > 0 ? exactDistribution(tokens) : undefined,
    models: ['sim-model'],
    providers: ['sim'],
  };
}

export interface SimulatedLaneOptions {
  readonly seed: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly callsPerSecond: number;
  /** Median seconds to first output. */
  readonly medianS: number;
  readonly sigma: number;
  /** Multiplies every latency of a call that ends at `t` (a slowdown). */
  readonly slowdown?: (t: number) => number;
  /** Probability that a call ending at `t` is a 429. */
  readonly rateLimited?: (t: number) => number;
  /** Probability that a call ending at `t` fails otherwise (5xx). */
  readonly failure?: (t: number) => number;
  readonly retryProbability?: number;
}

/** Calls of one lane at a steady rate, heavy-tailed, with optional slowdowns, 429s and failures. */
export function simulateLane(options: SimulatedLaneOptions): SimulatedCall[] {
  const random = seededRandom(options.seed);
  const calls: SimulatedCall[] = [];
  const gapMs = 1000 / options.callsPerSecond;
  for (let at = options.startMs; at < options.endMs; at += gapMs * (0.5 + random())) {
    const factor = options.slowdown?.(at) ?? 1;
    const attempt = random() < (options.retryProbability ?? 0) ? 2 : 1;
    if (random() < (options.rateLimited?.(at) ?? 0)) {
      const headers = 0.05 + 0.05 * random();
      calls.push({
        at,
        outcome: 'error',
        errorType: 'rate_limited',
        attempt,
        milestones: { headers, end: headers },
      });
      continue;
    }
    if (random() < (options.failure?.(at) ?? 0)) {
      const headers = logNormal(random, options.medianS, options.sigma) * factor;
      calls.push({
        at,
        outcome: 'error',
        errorType: 'http_5xx',
        attempt,
        milestones: { headers, end: headers },
      });
      continue;
    }
    const firstOutput = logNormal(random, options.medianS, options.sigma) * factor;
    const generation = logNormal(random, options.medianS * 4, options.sigma) * factor;
    calls.push({
      at,
      outcome: 'ok',
      attempt,
      milestones: {
        headers: firstOutput * 0.4,
        first_chunk: firstOutput * 0.8,
        first_output: firstOutput,
        first_text: firstOutput,
        end: firstOutput + generation,
      },
      outputTokensPerSecond: 400 / generation / factor,
    });
  }
  return calls;
}

/** The calls that ended in (end − seconds, end], from calls sorted by `at`. */
export function callsIn(calls: readonly SimulatedCall[], end: number, seconds: number): SimulatedCall[] {
  const start = end - seconds * 1000;
  let lo = 0;
  let hi = calls.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((calls[mid] as SimulatedCall).at <= start) lo = mid + 1;
    else hi = mid;
  }
  const out: SimulatedCall[] = [];
  for (let i = lo; i < calls.length && (calls[i] as SimulatedCall).at <= end; i++)
    out.push(calls[i] as SimulatedCall);
  return out;
}
