import { seededRandom, seedOf } from '@lanewatch/simulator';
import type { AdmissionJob } from '../admission/admit.ts';

/**
 * The demo's jobs, at the profiles' own time (seconds; the demo scales them): half interactive, whose
 * deadline is on the first visible text, half batch, whose deadline is on the whole answer; three in ten
 * carry a restricted credential and may only go to a lane that can hold a secret. The deadlines run from
 * hopeless to generous, so some jobs are refused at once and the rest land on the lane whose p95 fits.
 */
export const INTERACTIVE_DEADLINES_S = [0.6, 1, 1.5, 2.5, 4] as const;
export const BATCH_DEADLINES_S = [2.5, 3.5, 5, 8] as const;
export const RESTRICTED_SHARE = 0.3;
/** Seconds kept back from every deadline (seed 000 keeps 1 s on jobs of minutes; these last seconds). */
export const SAFETY_MARGIN_S = 0.25;

export function demoJob(index: number, seed: string, scale: number): AdmissionJob {
  const random = seededRandom(seedOf(seed), index, 7);
  const interactive = random.chance(0.5);
  const deadlines = interactive ? INTERACTIVE_DEADLINES_S : BATCH_DEADLINES_S;
  const deadline = deadlines[random.int(0, deadlines.length - 1)] as number;
  const restricted = random.chance(RESTRICTED_SHARE);
  return {
    id: `job-${index}`,
    deadline_s: Number((deadline * scale).toPrecision(3)),
    milestone: interactive ? 'first_text' : 'end',
    ...(restricted ? { secret_class: 'restricted' } : {}),
  };
}
