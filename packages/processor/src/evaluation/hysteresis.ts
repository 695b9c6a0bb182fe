import type { LaneEvaluationConfig } from './evaluation-config.ts';
import { atLeast, type LaneEvidence } from './evidence.ts';
import { type LaneState, severity } from './lane-health.ts';
import type { LaneMemory } from './lane-memory.ts';

export interface StateStep {
  readonly state: LaneState;
  readonly since: number;
  readonly pending: LaneMemory['pending'];
  /** Why the state is what it is, or where it is heading; for `reasons`. */
  readonly reason: string | undefined;
}

const BAD_STATES = ['down', 'saturated', 'degraded'] as const;

/**
 * One step of the state machine. A lane enters a worse state after `enterEvaluations` consecutive
 * evaluations past the enter threshold, or at once on strong evidence; it returns to a better state
 * only after `leaveEvaluations` consecutive evaluations below the leave threshold. Between the two
 * thresholds it stays where it is, so a heavy tail that wanders around one threshold never flaps.
 */
export function stepState(
  previous: LaneMemory,
  evidence: LaneEvidence | undefined,
  now: number,
  config: LaneEvaluationConfig,
): StateStep {
  if (evidence === undefined) {
    // Too few samples: say so at once; hysteresis is for noisy evidence, and there is none.
    return {
      state: 'unknown',
      since: previous.state === 'unknown' ? previous.since : now,
      pending: undefined,
      reason: undefined,
    };
  }
  const current = previous.state;
  let desired: LaneState = 'healthy';
  for (const state of BAD_STATES) {
    const level = evidence[state].level;
    if (atLeast(level, 'enter') || (state === current && atLeast(level, 'hold'))) {
      desired = state;
      break;
    }
  }
  const moveTo = (state: LaneState, reason: string | undefined): StateStep => ({
    state,
    since: state === current ? previous.since : now,
    pending: undefined,
    reason,
  });
  const why = desired === 'healthy' ? undefined : evidence[desired].reason;
  if (current === 'unknown' || desired === current) return moveTo(desired, why);

  const worse = severity(desired) > severity(current);
  if (worse && evidence[desired as (typeof BAD_STATES)[number]].level === 'strong') {
    return moveTo(desired, why);
  }
  const needed = worse ? config.enterEvaluations : config.leaveEvaluations;
  const count = previous.pending?.state === desired ? previous.pending.count + 1 : 1;
  if (count >= needed) return moveTo(desired, why);
  const stayReason = current === 'healthy' ? undefined : evidence[current].reason;
  return {
    state: current,
    since: previous.since,
    pending: { state: desired, count },
    reason: [stayReason, `${desired} ${count} of ${needed} evaluations${why ? `: ${why}` : ''}`]
      .filter((r) => r !== undefined)
      .join('; '),
  };
}
