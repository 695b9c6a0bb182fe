import type { LaneKnobs } from './lane-knobs.ts';
import type { Piece, Script } from './script.ts';
import { seededRandom, seedOf } from './seeded-random.ts';

/** What the draw decided for one request, beside the script it produced. */
export interface LaneTraits {
  readonly cold: boolean;
  readonly stalled: boolean;
  readonly rateLimited: boolean;
  /** A 500 or 503 instead of a stream. */
  readonly failed: boolean;
  /** The answer opened with reasoning or a tool call long before text. */
  readonly action: 'reasoning' | 'tool-call' | undefined;
  readonly slowGeneration: boolean;
  readonly fault: 'stream-error' | 'truncated' | 'reset' | undefined;
}

export interface LaneSample {
  readonly index: number;
  readonly script: Script;
  readonly traits: LaneTraits;
}

/** What the sampler cannot know from the seed alone: whether this request finds the lane cold. */
export interface LaneConditions {
  readonly cold: boolean;
}

/** A piece before its delay is known (distributes over the union). */
type Untimed<P> = P extends Piece ? Omit<P, 'delayMs'> : never;

// Independent draw streams per request, so adding a draw to one never shifts another.
const MAIN_STREAM = 1;
const BURST_STREAM = 2;

const WORDS = [
  'The',
  ' lane',
  ' answers',
  ' within',
  ' its',
  ' deadline',
  ' when',
  ' the',
  ' tail',
  ' allows',
  ' it',
  '.',
];
const THOUGHTS = [
  ' Consider',
  ' the',
  ' question',
  ' step',
  ' by',
  ' step',
  ' and',
  ' check',
  ' each',
  ' part',
  '.',
];

/**
 * Draws request `index` of a lane: the same knobs, seed, index and conditions give the same script,
 * to the microsecond, whatever ran before or beside it. Draws happen in a fixed order and all of
 * them always happen, so turning one knob does not reshuffle the others.
 */
export function sampleLane(
  knobs: LaneKnobs,
  seed: number | string,
  index: number,
  conditions: LaneConditions = { cold: false },
): LaneSample {
  const key = seedOf(seed);
  const random = seededRandom(key, index, MAIN_STREAM);
  const draw = {
    error: random.next(),
    errorStatus: random.chance(0.5) ? 500 : 503,
    stall: random.next(),
    stallMs: random.lognormal(knobs.stallMedianMs, knobs.stallSigma),
    headersMs: random.lognormal(knobs.headersMedianMs, knobs.headersSigma),
    firstOutputMs: random.lognormal(knobs.firstOutputMedianMs, knobs.firstOutputSigma),
    action: random.next(),
    actionLeadMs: random.lognormal(knobs.actionLeadMedianMs, knobs.actionLeadSigma),
    outputTokens: random.int(knobs.outputTokensMin, knobs.outputTokensMax),
    tokensPerSecond: random.lognormal(knobs.tokensPerSecondMedian, knobs.tokensPerSecondSigma),
    slow: random.next(),
    inputTokens: random.int(knobs.inputTokensMin, knobs.inputTokensMax),
    streamError: random.next(),
    truncate: random.next(),
    reset: random.next(),
    cutAt: random.next(),
  };
  const rateLimited = inRateLimitBurst(knobs, key, index);
  const failed = !rateLimited && draw.error < knobs.errorProbability;
  const stalled = draw.stall < knobs.stallProbability;
  const action = draw.action < knobs.actionProbability ? knobs.actionKind : undefined;
  const slowGeneration = draw.slow < knobs.slowGenerationProbability;
  const fault =
    draw.reset < knobs.resetProbability
      ? 'reset'
      : draw.truncate < knobs.truncateProbability
        ? 'truncated'
        : draw.streamError < knobs.streamErrorProbability
          ? 'stream-error'
          : undefined;
  const traits: LaneTraits = {
    cold: conditions.cold,
    stalled,
    rateLimited,
    failed,
    action,
    slowGeneration,
    fault: rateLimited || failed ? undefined : fault,
  };

  if (rateLimited) {
    // A rate limiter answers before any model work: a fraction of the usual wait for headers.
    return {
      index,
      traits,
      script: {
        kind: 'error',
        status: 429,
        headersDelayMs: draw.headersMs * 0.25,
        retryAfterSeconds: knobs.retryAfterSeconds,
      },
    };
  }
  const headersDelayMs =
    draw.headersMs + (stalled ? draw.stallMs : 0) + (conditions.cold ? knobs.coldStartMs : 0);
  if (failed) {
    return { index, traits, script: { kind: 'error', status: draw.errorStatus, headersDelayMs } };
  }

  const pieces: Piece[] = [{ kind: 'start', delayMs: knobs.startDelayMs }];
  let clock = 0; // ms since the start piece
  const at = (time: number, piece: Untimed<Piece>) => {
    pieces.push({ ...piece, delayMs: Math.max(0, time - clock) });
    clock = Math.max(clock, time);
  };
  if (knobs.heartbeatEveryMs > 0) {
    for (let time = knobs.heartbeatEveryMs; time < draw.firstOutputMs; time += knobs.heartbeatEveryMs) {
      at(time, { kind: 'heartbeat' });
    }
  }
  let firstTextAt = draw.firstOutputMs;
  let reasoningTokens = 0;
  if (action) {
    const fragments = action === 'tool-call' ? toolArguments(index, knobs.actionPieces) : undefined;
    const count = fragments ? fragments.length : knobs.actionPieces;
    for (let i = 0; i < count; i++) {
      const time = draw.firstOutputMs + (draw.actionLeadMs * i) / count;
      if (fragments) at(time, { kind: 'tool-call', call: 0, name: 'lookup_order', args: fragments[i] ?? '' });
      else at(time, { kind: 'reasoning', text: THOUGHTS[i % THOUGHTS.length] ?? '' });
    }
    if (!fragments) reasoningTokens = count;
    firstTextAt = draw.firstOutputMs + draw.actionLeadMs;
  }

  const speed = draw.tokensPerSecond * (slowGeneration ? knobs.slowGenerationFactor : 1);
  const tokenGapMs = 1000 / speed;
  const cutAfter = Math.max(1, Math.floor(draw.cutAt * draw.outputTokens));
  let time = firstTextAt;
  for (let token = 0; token < draw.outputTokens; token++) {
    if (token > 0) time += random.lognormal(tokenGapMs, knobs.tokenGapSigma);
    at(time, { kind: 'text', text: WORDS[(index + token) % WORDS.length] ?? '' });
    if (traits.fault && token + 1 === cutAfter) break;
  }
  const nextGap = tokenGapMs;
  switch (traits.fault) {
    case 'stream-error':
      at(clock + nextGap, { kind: 'error', errorType: 'overloaded' });
      break;
    case 'reset':
      at(clock + nextGap, { kind: 'reset' });
      break;
    case 'truncated':
      break;
    case undefined:
      at(clock + 1, { kind: 'finish', reason: 'stop' });
      at(clock, { kind: 'usage' });
      at(clock, { kind: 'done' });
      break;
  }
  const outputTokens = draw.outputTokens + reasoningTokens;
  return {
    index,
    traits,
    script: {
      kind: 'stream',
      headersDelayMs,
      pieces,
      usage: { inputTokens: draw.inputTokens, outputTokens, reasoningTokens },
    },
  };
}

/**
 * Whether request `index` falls in a 429 burst: a burst begins at request j with the burst
 * probability (its own draw stream) and rejects requests j … j + length − 1.
 */
export function inRateLimitBurst(knobs: LaneKnobs, seedKey: number, index: number): boolean {
  if (knobs.rateLimitBurstProbability === 0) return false;
  for (let start = Math.max(0, index - knobs.rateLimitBurstLength + 1); start <= index; start++) {
    if (seededRandom(seedKey, start, BURST_STREAM).next() < knobs.rateLimitBurstProbability) return true;
  }
  return false;
}

/** A tool call's JSON arguments cut into `pieces` fragments (fewer if the JSON is shorter). */
function toolArguments(index: number, pieces: number): string[] {
  const json = JSON.stringify({ order_id: `A-${1000 + (index % 9000)}`, include: ['status', 'eta'] });
  const size = Math.ceil(json.length / Math.min(pieces, json.length));
  const fragments: string[] = [];
  for (let offset = 0; offset < json.length; offset += size)
    fragments.push(json.slice(offset, offset + size));
  return fragments;
}
