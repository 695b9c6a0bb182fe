import type { AdmissionDecision } from '../admission/admit.ts';
import type { MeasuredCall } from '../probe/instrumented-client.ts';

/** What the demo's caller saw of one lane: calls by outcome, and the admission decisions about it. */
export interface LaneTally {
  calls: number;
  readonly outcomes: Record<string, number>;
  readonly errors: Record<string, number>;
  /** Jobs sent to this lane by `admit`. */
  admitted: number;
  /** Jobs for which `admit` passed this lane over, by reason (`over_budget`, `saturated`, …). */
  readonly rejected: Record<string, number>;
}

export interface JobTally {
  total: number;
  admitted: number;
  refused: number;
  /**
   * Refusals by cause: `over_budget` (an eligible lane existed, none fit the deadline), `warming_up`
   * (no lane had `min_samples` yet), `no_eligible_lane` (secret class, saturation, …).
   */
  readonly refusedByCause: Record<string, number>;
  /** Admitted jobs whose call reached its milestone within the deadline, and those that did not. */
  met: number;
  missed: number;
}

export interface DemoTally {
  readonly lanes: Map<string, LaneTally>;
  readonly jobs: JobTally;
  laneOf(lane: string): LaneTally;
  recordCall(call: MeasuredCall): void;
  recordDecision(decision: AdmissionDecision): void;
  recordJobOutcome(met: boolean): void;
}

function bump(into: Record<string, number>, key: string): void {
  into[key] = (into[key] ?? 0) + 1;
}

export function refusalCause(decision: AdmissionDecision): string {
  const reasons = decision.considered.map((c) => c.rejected);
  if (reasons.includes('over_budget')) return 'over_budget';
  // A lane that might have taken the job had no verdict yet.
  if (reasons.length === 0 || reasons.some((r) => r === 'unknown' || r === 'stale')) return 'warming_up';
  return 'no_eligible_lane';
}

export function createDemoTally(): DemoTally {
  const lanes = new Map<string, LaneTally>();
  const jobs: JobTally = { total: 0, admitted: 0, refused: 0, refusedByCause: {}, met: 0, missed: 0 };
  const laneOf = (lane: string): LaneTally => {
    let tally = lanes.get(lane);
    if (!tally) {
      tally = { calls: 0, outcomes: {}, errors: {}, admitted: 0, rejected: {} };
      lanes.set(lane, tally);
    }
    return tally;
  };
  return {
    lanes,
    jobs,
    laneOf,
    recordCall(call) {
      const tally = laneOf(call.lane);
      tally.calls++;
      bump(tally.outcomes, call.outcome);
      if (call.outcome === 'error') bump(tally.errors, call.errorType ?? 'other');
    },
    recordDecision(decision) {
      jobs.total++;
      if (decision.admitted && decision.lane !== null) {
        jobs.admitted++;
        laneOf(decision.lane).admitted++;
      } else {
        jobs.refused++;
        bump(jobs.refusedByCause, refusalCause(decision));
      }
      for (const considered of decision.considered) {
        if (considered.rejected !== undefined) bump(laneOf(considered.lane).rejected, considered.rejected);
      }
    },
    recordJobOutcome(met) {
      if (met) jobs.met++;
      else jobs.missed++;
    },
  };
}
