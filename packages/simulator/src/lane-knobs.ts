/**
 * The knobs of a simulated lane. Every duration is in milliseconds and every `…Sigma` is the σ of a
 * lognormal (median · e^(σ·z)): 0.1 is tight, 0.5 is a wide body, 1 is a heavy tail. Defaults are a
 * healthy lane: 300 ms to headers, first text 150 ms later, 30–120 tokens at 60 tokens/s.
 */
export interface LaneKnobs {
  /** Median time from request to response headers. */
  readonly headersMedianMs: number;
  readonly headersSigma: number;
  /** Chance that a request stalls before its headers, and the extra wait when it does. */
  readonly stallProbability: number;
  readonly stallMedianMs: number;
  readonly stallSigma: number;
  /** The first N requests are cold (a model loading, a container starting)… */
  readonly coldStartRequests: number;
  /** …and so is a request after this much idle time (0: never). */
  readonly coldStartIdleMs: number;
  /** Extra wait before the headers of a cold request. */
  readonly coldStartMs: number;
  /** Chance that a 429 burst begins at a given request; each burst rejects this many requests. */
  readonly rateLimitBurstProbability: number;
  readonly rateLimitBurstLength: number;
  /** The `retry-after` of those 429s, in seconds. */
  readonly retryAfterSeconds: number;
  /** Chance of a 500 or 503 instead of a stream. */
  readonly errorProbability: number;
  /** From headers to the meta event (role delta, `message_start`, `response.created`). */
  readonly startDelayMs: number;
  /** Median time from the meta event to the first output. */
  readonly firstOutputMedianMs: number;
  readonly firstOutputSigma: number;
  /** Keep-alives (SSE comments, Anthropic `ping`) this often while no output flows (0: none). */
  readonly heartbeatEveryMs: number;
  /** Chance that the answer opens with reasoning or a tool call long before any text. */
  readonly actionProbability: number;
  readonly actionKind: 'reasoning' | 'tool-call';
  /** Median time from the first action delta to the first text, and its spread. */
  readonly actionLeadMedianMs: number;
  readonly actionLeadSigma: number;
  /** Reasoning deltas, or fragments of the tool call's arguments, in that lead. */
  readonly actionPieces: number;
  /** Text tokens per response (uniform), one token per text delta. */
  readonly outputTokensMin: number;
  readonly outputTokensMax: number;
  /** Median generation speed per response, and its spread between responses. */
  readonly tokensPerSecondMedian: number;
  readonly tokensPerSecondSigma: number;
  /** Spread of each gap between two tokens around 1 / speed. */
  readonly tokenGapSigma: number;
  /** Chance that a response starts fast and then generates at `slowGenerationFactor` × its speed. */
  readonly slowGenerationProbability: number;
  readonly slowGenerationFactor: number;
  /** Prompt tokens reported in the usage (uniform). */
  readonly inputTokensMin: number;
  readonly inputTokensMax: number;
  /** Mid-stream faults: an in-stream `overloaded` error, a body that ends early, a connection reset. */
  readonly streamErrorProbability: number;
  readonly truncateProbability: number;
  readonly resetProbability: number;
}

export const DEFAULT_KNOBS: LaneKnobs = {
  headersMedianMs: 300,
  headersSigma: 0.25,
  stallProbability: 0,
  stallMedianMs: 3000,
  stallSigma: 0.3,
  coldStartRequests: 0,
  coldStartIdleMs: 0,
  coldStartMs: 4000,
  rateLimitBurstProbability: 0,
  rateLimitBurstLength: 20,
  retryAfterSeconds: 2,
  errorProbability: 0,
  startDelayMs: 5,
  firstOutputMedianMs: 150,
  firstOutputSigma: 0.3,
  heartbeatEveryMs: 0,
  actionProbability: 0,
  actionKind: 'reasoning',
  actionLeadMedianMs: 2000,
  actionLeadSigma: 0.3,
  actionPieces: 12,
  outputTokensMin: 30,
  outputTokensMax: 120,
  tokensPerSecondMedian: 60,
  tokensPerSecondSigma: 0.2,
  tokenGapSigma: 0.3,
  slowGenerationProbability: 0,
  slowGenerationFactor: 0.15,
  inputTokensMin: 200,
  inputTokensMax: 1200,
  streamErrorProbability: 0,
  truncateProbability: 0,
  resetProbability: 0,
};

/** A knob out of range, named with what to do about it. */
export class LaneKnobError extends Error {
  override readonly name = 'LaneKnobError';
}

const PROBABILITIES = [
  'stallProbability',
  'rateLimitBurstProbability',
  'errorProbability',
  'actionProbability',
  'slowGenerationProbability',
  'streamErrorProbability',
  'truncateProbability',
  'resetProbability',
] as const;

const POSITIVE = [
  'headersMedianMs',
  'stallMedianMs',
  'firstOutputMedianMs',
  'actionLeadMedianMs',
  'tokensPerSecondMedian',
] as const;

const NON_NEGATIVE = [
  'headersSigma',
  'stallSigma',
  'coldStartRequests',
  'coldStartIdleMs',
  'coldStartMs',
  'retryAfterSeconds',
  'startDelayMs',
  'firstOutputSigma',
  'heartbeatEveryMs',
  'actionLeadSigma',
  'tokensPerSecondSigma',
  'tokenGapSigma',
] as const;

const COUNTS = ['rateLimitBurstLength', 'actionPieces', 'outputTokensMin', 'inputTokensMin'] as const;

/** Fills defaults and checks every knob; the error says which knob and what it must be. */
export function laneKnobs(overrides: Partial<LaneKnobs> = {}, where = 'lane'): LaneKnobs {
  for (const key of Object.keys(overrides)) {
    if (!(key in DEFAULT_KNOBS)) {
      throw new LaneKnobError(
        `${where}: unknown knob "${key}" (knobs: ${Object.keys(DEFAULT_KNOBS).join(', ')})`,
      );
    }
  }
  const knobs: LaneKnobs = { ...DEFAULT_KNOBS, ...overrides };
  const fail = (key: keyof LaneKnobs, rule: string) => {
    throw new LaneKnobError(`${where}: "${key}" must be ${rule}, got ${JSON.stringify(knobs[key])}`);
  };
  const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
  for (const key of PROBABILITIES) {
    if (!finite(knobs[key]) || knobs[key] < 0 || knobs[key] > 1) fail(key, 'a probability from 0 to 1');
  }
  for (const key of POSITIVE) if (!finite(knobs[key]) || knobs[key] <= 0) fail(key, 'a number above 0');
  for (const key of NON_NEGATIVE) if (!finite(knobs[key]) || knobs[key] < 0) fail(key, 'a number ≥ 0');
  for (const key of COUNTS) {
    if (
      !Number.isInteger(knobs[key]) ||
      knobs[key] < (key === 'outputTokensMin' || key === 'inputTokensMin' ? 0 : 1)
    ) {
      fail(key, key.endsWith('Min') ? 'an integer ≥ 0' : 'an integer ≥ 1');
    }
  }
  if (!Number.isInteger(knobs.outputTokensMax) || knobs.outputTokensMax < knobs.outputTokensMin) {
    fail('outputTokensMax', `an integer ≥ outputTokensMin (${knobs.outputTokensMin})`);
  }
  if (!Number.isInteger(knobs.inputTokensMax) || knobs.inputTokensMax < knobs.inputTokensMin) {
    fail('inputTokensMax', `an integer ≥ inputTokensMin (${knobs.inputTokensMin})`);
  }
  if (!Number.isInteger(knobs.coldStartRequests)) fail('coldStartRequests', 'an integer ≥ 0');
  if (
    !finite(knobs.slowGenerationFactor) ||
    knobs.slowGenerationFactor <= 0 ||
    knobs.slowGenerationFactor > 1
  ) {
    fail('slowGenerationFactor', 'a factor above 0 and at most 1');
  }
  if (knobs.actionKind !== 'reasoning' && knobs.actionKind !== 'tool-call') {
    fail('actionKind', '"reasoning" or "tool-call"');
  }
  return knobs;
}

/** The knobs that are durations: everything a time scale multiplies. */
const DURATION_KNOBS = [
  'headersMedianMs',
  'stallMedianMs',
  'coldStartIdleMs',
  'coldStartMs',
  'startDelayMs',
  'firstOutputMedianMs',
  'heartbeatEveryMs',
  'actionLeadMedianMs',
] as const satisfies readonly (keyof LaneKnobs)[];

/**
 * Knobs with every duration multiplied by `scale` (0.5: the lane runs twice as fast), generation
 * speed divided by it and `retry-after` multiplied by it, so a lane keeps its shapes and ratios.
 * Sigmas, probabilities and counts do not change with time.
 */
export function scaledKnobs(knobs: LaneKnobs, scale: number): Partial<LaneKnobs> {
  const scaled: Partial<Record<keyof LaneKnobs, number>> = {};
  for (const knob of DURATION_KNOBS) scaled[knob] = knobs[knob] * scale;
  scaled.tokensPerSecondMedian = knobs.tokensPerSecondMedian / scale;
  scaled.retryAfterSeconds = knobs.retryAfterSeconds * scale;
  return scaled as Partial<LaneKnobs>;
}
