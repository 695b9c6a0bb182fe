import { type Counter, type Meter, type MeterProvider, metrics, ValueType } from '@opentelemetry/api';
import type { AdmissionDecision } from '../admission/admit.ts';
import {
  type DecisionReason,
  PROCESSOR_INSTRUMENT,
  PROCESSOR_METER,
  TELEMETRY_ATTR,
} from './instrument-names.ts';

/** The bounded class of a decision's reason (its sentence carries numbers and lane names). */
export function decisionReasonOf(
  decision: Pick<AdmissionDecision, 'admitted' | 'considered'>,
): DecisionReason {
  if (decision.admitted) return 'within_budget';
  if (decision.considered.length === 0) return 'no_lanes';
  return decision.considered.some((c) => c.rejected === 'over_budget') ? 'over_budget' : 'no_eligible_lane';
}

function decisionCounter(meter: Meter): Counter {
  const { name, unit, description } = PROCESSOR_INSTRUMENT.admissionDecisions;
  return meter.createCounter(name, { unit, description, valueType: ValueType.INT });
}

/**
 * Counts each admission decision on `lanewatch.admission.decisions`. With a `meter`, there; without,
 * on the global `@opentelemetry/api` meter provider of the host service — looked up at each decision,
 * so an SDK started after the controller was created is still used, and nothing at all is recorded
 * (the API's no-op) while the host has none. Never throws: a decision is never lost to telemetry.
 */
export function admissionDecisionRecorder(meter?: Meter): (decision: AdmissionDecision) => void {
  let counter = meter === undefined ? undefined : decisionCounter(meter);
  let provider: MeterProvider | undefined;
  return (decision) => {
    try {
      if (meter === undefined) {
        const current = metrics.getMeterProvider();
        if (current !== provider || counter === undefined) {
          provider = current;
          counter = decisionCounter(current.getMeter(PROCESSOR_METER));
        }
      }
      counter?.add(1, {
        [TELEMETRY_ATTR.decision]: decision.admitted ? 'admitted' : 'refused',
        [TELEMETRY_ATTR.reason]: decisionReasonOf(decision),
        ...(decision.admitted && decision.lane !== null ? { [TELEMETRY_ATTR.lane]: decision.lane } : {}),
      });
    } catch {
      // Telemetry never turns a decision into an exception for the caller.
    }
  };
}
