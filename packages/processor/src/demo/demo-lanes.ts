import { type LaneKnobs, laneProfile, type ProfileName, scaledKnobs } from '@lanewatch/simulator';
import type { ProviderFormat } from '../probe/provider-request.ts';

/** One lane of the demo: a simulator profile, the wire format its calls speak, and its scorecard. */
export interface DemoLane {
  readonly lane: string;
  readonly profile: ProfileName;
  readonly format: ProviderFormat;
  readonly model: string;
  /** Why this lane is in the demo: what to look for on the scoreboard. */
  readonly role: string;
  /** Knobs changed from the profile (at the profile's own time scale), and why in a comment. */
  readonly knobs?: Partial<LaneKnobs>;
  readonly scorecard: {
    readonly can_hold_secret: boolean;
    readonly offline_capable: boolean;
    /** Seconds at the profile's own time (scaled with the rest). */
    readonly handoff_s: number;
    readonly rank: number;
  };
}

/**
 * The demo's lanes. `steady` and `spiky` have the same mean time to first text and a p95 three times
 * apart: the point of lanewatch in one pair. The others each show one shape an average hides. Five wire
 * formats between them, so every detector is at work.
 */
export const DEMO_LANES: readonly DemoLane[] = [
  {
    lane: 'steady',
    profile: 'steady',
    format: 'openai-chat',
    model: 'steady-chat',
    role: 'a tight body: its mean and its p95 are close',
    scorecard: { can_hold_secret: false, offline_capable: false, handoff_s: 0.1, rank: 1 },
  },
  {
    lane: 'spiky',
    profile: 'spiky',
    format: 'ollama',
    model: 'spiky-local',
    role: 'the same mean as steady; one call in ten stalls ≈ 2 s before headers, so its p95 is 3× steady’s',
    // The profile stalls 7 % of calls: its p95 then sits at the edge of the stall cliff and jumps between
    // the body and the stalls from one window to the next. 10 % puts the p95 inside the stalls, and a
    // faster body keeps the mean equal to steady's.
    knobs: { stallProbability: 0.1, headersMedianMs: 240 },
    scorecard: { can_hold_secret: true, offline_capable: true, handoff_s: 0, rank: 0 },
  },
  {
    lane: 'rate-limited',
    profile: 'rate-limited',
    format: 'openai-responses',
    model: 'free-tier',
    role: 'fast when it answers, but bursts of 429s: saturated, so no job is sent and no hedge allowed',
    scorecard: { can_hold_secret: false, offline_capable: false, handoff_s: 0.1, rank: 2 },
  },
  {
    lane: 'thinker',
    profile: 'thinker',
    format: 'gemini',
    model: 'thinker-pro',
    role: 'first output (reasoning) early, visible text ≈ 2.5 s later',
    scorecard: { can_hold_secret: true, offline_capable: false, handoff_s: 0.2, rank: 3 },
  },
  {
    lane: 'tool-caller',
    profile: 'tool-caller',
    format: 'anthropic',
    model: 'agent-tools',
    role: 'tool-call arguments stream long before any text',
    scorecard: { can_hold_secret: false, offline_capable: false, handoff_s: 0.2, rank: 3 },
  },
  {
    lane: 'slow-generation',
    profile: 'slow-generation',
    format: 'openai-chat',
    model: 'long-writer',
    role: 'first text fastest of all; 30 % of answers then crawl: cheap for a first-text deadline, dear for the whole answer',
    scorecard: { can_hold_secret: false, offline_capable: false, handoff_s: 0.1, rank: 2 },
  },
];

/** The knob overrides a demo lane is started with (over its profile), at a time scale. */
export function demoLaneKnobs(lane: DemoLane, scale: number): Partial<LaneKnobs> {
  return { ...lane.knobs, ...scaledKnobs(laneProfile(lane.profile, lane.knobs).knobs, scale) };
}

/**
 * The lanes file of the demo (the same YAML a user writes for `lanewatch serve --lanes`): each lane
 * matched by its server's URL, its scorecard at the demo's time scale, and a p95 budget on first
 * output that marks a lane whose calls often stall as `degraded`.
 */
export function demoLanesYaml(
  lanes: readonly { demo: DemoLane; url: string }[],
  scale: number,
  minSamples: number,
): string {
  const seconds = (s: number) => Number((s * scale).toPrecision(3));
  const lines = [
    '# Written by lanewatch demo: the lanes file of its simulated lanes (times at its time scale).',
    'defaults:',
    `  min_samples: ${minSamples}`,
    '  p95_budget_s:',
    `    first_output: ${seconds(1.5)}`,
    'lanes:',
  ];
  for (const { demo: lane, url } of lanes) {
    lines.push(
      `  ${lane.lane}:`,
      `    match: [${JSON.stringify(url)}]`,
      `    can_hold_secret: ${lane.scorecard.can_hold_secret}`,
      `    offline_capable: ${lane.scorecard.offline_capable}`,
      `    handoff_s: ${seconds(lane.scorecard.handoff_s)}`,
      `    rank: ${lane.scorecard.rank}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
