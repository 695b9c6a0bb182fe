import { LaneKnobError, type LaneKnobs, laneKnobs } from './lane-knobs.ts';

export interface LaneProfile {
  readonly name: string;
  readonly description: string;
  readonly knobs: LaneKnobs;
}

/**
 * The named lanes of the demo and the end-to-end tests. `steady` and `spiky` have nearly the same
 * mean time to first text and a p95 about 3× apart: the point of lanewatch in one pair.
 */
const PROFILES = {
  steady: {
    description: 'a tight lognormal body: mean ≈ 0.62 s to first text, p95 ≈ 0.75 s',
    knobs: { headersMedianMs: 450, headersSigma: 0.15, firstOutputMedianMs: 150, firstOutputSigma: 0.2 },
  },
  spiky: {
    description: 'the same mean as steady, but 7% of requests stall ≈ 2 s before headers: p95 ≈ 3× steady',
    knobs: {
      headersMedianMs: 300,
      headersSigma: 0.25,
      firstOutputMedianMs: 150,
      firstOutputSigma: 0.2,
      stallProbability: 0.07,
      stallMedianMs: 2000,
      stallSigma: 0.25,
    },
  },
  'rate-limited': {
    description: 'bursts of 429s with retry-after: 2 (a burst starts at 1.5% of requests and rejects 12)',
    knobs: { rateLimitBurstProbability: 0.015, rateLimitBurstLength: 12, retryAfterSeconds: 2 },
  },
  thinker: {
    description: 'reasoning begins at ≈ 0.4 s, visible text ≈ 2.5 s later (text_after_action_slow)',
    knobs: {
      headersMedianMs: 250,
      firstOutputMedianMs: 120,
      actionProbability: 0.9,
      actionKind: 'reasoning',
      actionLeadMedianMs: 2500,
      actionLeadSigma: 0.35,
      actionPieces: 20,
    },
  },
  'tool-caller': {
    description: 'a tool call’s arguments stream from ≈ 0.4 s, text follows ≈ 1.8 s later',
    knobs: {
      headersMedianMs: 250,
      firstOutputMedianMs: 120,
      actionProbability: 0.8,
      actionKind: 'tool-call',
      actionLeadMedianMs: 1800,
      actionLeadSigma: 0.3,
      actionPieces: 8,
    },
  },
  'slow-generation': {
    description: 'first text fast (≈ 0.3 s); 30% of responses then generate at 0.15× speed (generation_slow)',
    knobs: {
      headersMedianMs: 200,
      firstOutputMedianMs: 100,
      outputTokensMin: 80,
      outputTokensMax: 160,
      tokensPerSecondMedian: 80,
      slowGenerationProbability: 0.3,
      slowGenerationFactor: 0.15,
    },
  },
  'cold-start': {
    description: 'the first 3 requests, and any after 15 s idle, wait 4 s more before headers',
    knobs: { coldStartRequests: 3, coldStartIdleMs: 15_000, coldStartMs: 4000 },
  },
  flaky: {
    description: 'every failure once in a while: 5xx, in-stream overloaded errors, early ends, resets',
    knobs: {
      errorProbability: 0.03,
      streamErrorProbability: 0.03,
      truncateProbability: 0.02,
      resetProbability: 0.02,
    },
  },
} as const satisfies Record<string, { description: string; knobs: Partial<LaneKnobs> }>;

export type ProfileName = keyof typeof PROFILES;

export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

export function isProfileName(name: string): name is ProfileName {
  return Object.hasOwn(PROFILES, name);
}

/** A named profile with knobs overridden; unknown names and bad knobs throw `LaneKnobError`. */
export function laneProfile(name: string, overrides: Partial<LaneKnobs> = {}): LaneProfile {
  if (!isProfileName(name)) {
    throw new LaneKnobError(`unknown lane profile "${name}" (profiles: ${PROFILE_NAMES.join(', ')})`);
  }
  const profile = PROFILES[name];
  return {
    name,
    description: profile.description,
    knobs: laneKnobs({ ...profile.knobs, ...overrides }, `profile "${name}"`),
  };
}
