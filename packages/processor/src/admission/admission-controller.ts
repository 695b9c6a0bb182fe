import { appendFileSync } from 'node:fs';
import type { Meter } from '@opentelemetry/api';
import type { LaneHealthView } from '../evaluation/lane-health.ts';
import { admissionDecisionRecorder } from '../telemetry/admission-decisions.ts';
import { type AdmissionDecision, type AdmissionJob, admit } from './admit.ts';
import { type CalibrationReport, calibrationOf, type OutcomeRecord } from './calibration.ts';

/** Where decision and outcome records go: one JSON document per line. */
export type DecisionLog = (line: string) => void;

/** A decision log appended to a file, one line per record, in order. */
export function decisionLogFile(path: string): DecisionLog {
  return (line) => appendFileSync(path, `${line}\n`);
}

export interface AdmissionControllerOptions {
  /** Live hints: a `LaneReader` or anything that lists lanes. */
  readonly reader: { lanes(): Promise<LaneHealthView[]> };
  readonly log?: DecisionLog;
  readonly safetyMarginS?: number;
  readonly now?: () => number;
  /** Decisions awaiting an outcome that are kept (oldest dropped beyond it). Default 10,000. */
  readonly maxOpenDecisions?: number;
  /** Outcomes kept per lane for the calibration report (oldest dropped). Default 1,000. */
  readonly maxOutcomesPerLane?: number;
  /**
   * Where `lanewatch.admission.decisions` is counted. Default: the global `@opentelemetry/api` meter
   * provider, i.e. the host service's SDK when it has one, and nothing (a no-op) when it has none.
   */
  readonly meter?: Meter;
}

export interface AdmissionController {
  /** Decides at once on the latest hints; logs one decision record. */
  admit(job: AdmissionJob): Promise<AdmissionDecision>;
  /** Logs and keeps how the admitted job went; `undefined` for a decision it does not know (or a refusal). */
  recordOutcome(decisionId: string, actual_s: number, outcome: string): OutcomeRecord | undefined;
  calibration(): CalibrationReport;
}

interface OpenDecision {
  readonly job_id: string;
  readonly lane: string;
  readonly expected_cost_s: number;
  readonly deadline_s: number;
}

export function createAdmissionController(options: AdmissionControllerOptions): AdmissionController {
  const now = options.now ?? Date.now;
  const maxOpen = options.maxOpenDecisions ?? 10_000;
  const maxOutcomes = options.maxOutcomesPerLane ?? 1000;
  const open = new Map<string, OpenDecision>();
  const outcomes = new Map<string, OutcomeRecord[]>();
  const countDecision = admissionDecisionRecorder(options.meter);
  const log = (record: object) => {
    try {
      options.log?.(JSON.stringify(record));
    } catch {
      // A log that cannot be written must not turn a decision into an exception for the caller.
    }
  };

  return {
    async admit(job) {
      const hints = await options.reader.lanes();
      const decision = admit(job, hints, {
        ...(options.safetyMarginS === undefined ? {} : { safetyMarginS: options.safetyMarginS }),
        now,
      });
      log({ type: 'decision', ...decision });
      countDecision(decision);
      if (decision.admitted && decision.lane !== null && decision.expected_cost_s !== null) {
        open.set(decision.decision_id, {
          job_id: decision.job_id,
          lane: decision.lane,
          expected_cost_s: decision.expected_cost_s,
          deadline_s: decision.deadline_s,
        });
        if (open.size > maxOpen) open.delete(open.keys().next().value as string);
      }
      return decision;
    },
    recordOutcome(decisionId, actual_s, outcome) {
      const decision = open.get(decisionId);
      if (!decision || !Number.isFinite(actual_s) || actual_s < 0) return undefined;
      open.delete(decisionId);
      const record: OutcomeRecord = {
        type: 'outcome',
        decision_id: decisionId,
        job_id: decision.job_id,
        lane: decision.lane,
        at: new Date(now()).toISOString(),
        expected_cost_s: decision.expected_cost_s,
        actual_s,
        gap_s: Math.round((actual_s - decision.expected_cost_s) * 1000) / 1000,
        deadline_s: decision.deadline_s,
        met_deadline: actual_s <= decision.deadline_s,
        outcome: /^[a-z_]{1,32}$/.test(outcome) ? outcome : 'other',
      };
      log(record);
      const list = outcomes.get(decision.lane) ?? [];
      list.push(record);
      if (list.length > maxOutcomes) list.shift();
      outcomes.set(decision.lane, list);
      return record;
    },
    calibration: () => calibrationOf([...outcomes.values()].flat()),
  };
}
