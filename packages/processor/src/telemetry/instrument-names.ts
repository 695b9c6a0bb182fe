// Every instrument the processor (and the admission controller) records about itself, in one place:
// name, unit, description, attributes, and the series the collector's Prometheus remote write makes of
// it. The collector runs `translation_strategy: UnderscoreEscapingWithSuffixes`
// (collector-config/collector.yaml): dots become underscores, the unit is appended in words (`s` →
// `_seconds`; `{…}` annotations are dropped), a monotonic counter gets `_total`, a gauge of unit `1`
// gets `_ratio`. So: no unit on 0/1 indicators and codes (a `_ratio` there would lie), `1` on fractions.
// Resource attributes go to `target_info`; `service.name` becomes `job`, `service.instance.id` `instance`.

import { ATTR } from '@lanewatch/instrumentation/names';
import type { LaneState } from '../evaluation/lane-health.ts';

/** Instrumentation scope of every instrument here. */
export const PROCESSOR_METER = '@lanewatch/processor';

/** `service.name` of the processor's own resource unless `OTEL_SERVICE_NAME` or the caller says otherwise. */
export const PROCESSOR_SERVICE_NAME = 'lanewatch-processor';

/** Attribute keys (Prometheus label: dots → underscores, e.g. `lanewatch_milestone`). */
export const TELEMETRY_ATTR = {
  lane: ATTR.lane,
  /** On `lane.state`: one of `LANE_STATES`. */
  state: 'lanewatch.state',
  /** A milestone word of `@lanewatch/instrumentation/names` (`headers` … `end`), never a metric name. */
  milestone: 'lanewatch.milestone',
  /** `p50 | p95 | p99`. */
  quantile: 'lanewatch.quantile',
  /** On `lane.rate`: the record's `rates` key. */
  rate: 'lanewatch.rate',
  /** `admitted | refused`. */
  decision: 'lanewatch.decision',
  /** A class from `DECISION_REASONS`, never the decision's sentence. */
  reason: 'lanewatch.reason',
  /** `accepted | rejected`. */
  ingestResult: 'lanewatch.ingest.result',
  statusCode: ATTR.statusCode,
} as const;

export const QUANTILES = ['p50', 'p95', 'p99'] as const;
export type QuantileName = (typeof QUANTILES)[number];

/** The record's `rates` keys, each a fraction of the window's calls. */
export const RATES = ['error', 'rate_limited', 'timeout', 'cancelled', 'truncated', 'retry'] as const;

/**
 * `lane.state_code`: higher is worse, so `max` over lanes is the worst state and `> 0` is trouble.
 * The same order as the record's states (`severity` in evaluation/lane-health.ts).
 */
export const STATE_CODE: Readonly<Record<LaneState, number>> = {
  unknown: -1,
  healthy: 0,
  degraded: 1,
  saturated: 2,
  down: 3,
};

/**
 * `lanewatch.reason` of an admission decision: `within_budget` (admitted); `over_budget` (an eligible
 * lane exists but even the cheapest expects more than the budget); `no_eligible_lane` (every lane was
 * ruled out: secret class, offline need, stale, unknown, down, saturated, no expected cost);
 * `no_lanes` (no hints at all).
 */
export const DECISION_REASONS = ['within_budget', 'over_budget', 'no_eligible_lane', 'no_lanes'] as const;
export type DecisionReason = (typeof DECISION_REASONS)[number];

export interface InstrumentName {
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  readonly kind: 'gauge' | 'counter';
  /** Attribute keys of its points (a decision's `lanewatch.lane` only when it admitted). */
  readonly attributes: readonly string[];
  /** The series name in Prometheus after the collector's remote write (see the top of this file). */
  readonly prometheus: string;
}

const { lane, state, milestone, quantile, rate, decision, reason, ingestResult, statusCode } = TELEMETRY_ATTR;

/**
 * The instruments. Lane gauges are read from the latest unexpired record of each lane when the
 * metrics are collected; a value the record has as `null` (or a milestone it lacks) has no point.
 */
export const PROCESSOR_INSTRUMENT = {
  laneState: {
    name: 'lanewatch.processor.lane.state',
    unit: '',
    description:
      'Lane state: one series per lane and state, 1 for the current state and 0 for the others (a state timeline)',
    kind: 'gauge',
    attributes: [lane, state],
    prometheus: 'lanewatch_processor_lane_state',
  },
  laneStateCode: {
    name: 'lanewatch.processor.lane.state_code',
    unit: '',
    description:
      'Lane state as a number, worse is higher: unknown -1, healthy 0, degraded 1, saturated 2, down 3',
    kind: 'gauge',
    attributes: [lane],
    prometheus: 'lanewatch_processor_lane_state_code',
  },
  laneSamples: {
    name: 'lanewatch.processor.lane.samples',
    unit: '{call}',
    description: 'Calls in the lane window, every outcome',
    kind: 'gauge',
    attributes: [lane],
    prometheus: 'lanewatch_processor_lane_samples',
  },
  laneMilestoneSamples: {
    name: 'lanewatch.processor.lane.milestone_samples',
    unit: '{call}',
    description: 'Successful calls in the window that reached the milestone (what its quantiles are made of)',
    kind: 'gauge',
    attributes: [lane, milestone],
    prometheus: 'lanewatch_processor_lane_milestone_samples',
  },
  laneQuantile: {
    name: 'lanewatch.processor.lane.quantile',
    unit: 's',
    description: 'p50/p95/p99 of a milestone (seconds from dispatch) over the window’s successful calls',
    kind: 'gauge',
    attributes: [lane, milestone, quantile],
    prometheus: 'lanewatch_processor_lane_quantile_seconds',
  },
  laneTailRatio: {
    name: 'lanewatch.processor.lane.tail_ratio',
    unit: '1',
    description: 'p99 / p50 of the lane’s primary milestone (the milestone attribute)',
    kind: 'gauge',
    attributes: [lane, milestone],
    prometheus: 'lanewatch_processor_lane_tail_ratio',
  },
  laneRate: {
    name: 'lanewatch.processor.lane.rate',
    unit: '1',
    description:
      'Fraction of the window’s calls: error (every error outcome), rate_limited (429), timeout, cancelled, truncated, retry',
    kind: 'gauge',
    attributes: [lane, rate],
    prometheus: 'lanewatch_processor_lane_rate_ratio',
  },
  laneCutoff: {
    name: 'lanewatch.processor.lane.cutoff',
    unit: 's',
    description:
      'Recommended cutoff: give up waiting for the milestone after this many seconds (first_output: the first-output cutoff; end: the total cutoff)',
    kind: 'gauge',
    attributes: [lane, milestone],
    prometheus: 'lanewatch_processor_lane_cutoff_seconds',
  },
  laneHedgeDelay: {
    name: 'lanewatch.processor.lane.hedge.delay',
    unit: 's',
    description: 'Hedge delay: fire a second attempt when the milestone has not happened after this long',
    kind: 'gauge',
    attributes: [lane, milestone],
    prometheus: 'lanewatch_processor_lane_hedge_delay_seconds',
  },
  laneHedgeAllowed: {
    name: 'lanewatch.processor.lane.hedge.allowed',
    unit: '',
    description: 'Whether hedging is welcome now: 1 yes, 0 no (never while unknown, saturated or down)',
    kind: 'gauge',
    attributes: [lane],
    prometheus: 'lanewatch_processor_lane_hedge_allowed',
  },
  laneExpectedCost: {
    name: 'lanewatch.processor.lane.expected_cost',
    unit: 's',
    description: 'Expected cost: p95 of the milestone × (1 + retry rate) + the lane’s handoff',
    kind: 'gauge',
    attributes: [lane, milestone],
    prometheus: 'lanewatch_processor_lane_expected_cost_seconds',
  },
  admissionDecisions: {
    name: 'lanewatch.admission.decisions',
    unit: '{decision}',
    description:
      'Admission decisions, by outcome and reason class; lanewatch.lane is the chosen lane, absent on a refusal',
    kind: 'counter',
    attributes: [lane, decision, reason],
    prometheus: 'lanewatch_admission_decisions_total',
  },
  ingestPoints: {
    name: 'lanewatch.processor.ingest.points',
    unit: '{point}',
    description:
      'lanewatch histogram points received on POST /v1/metrics or OTLP/gRPC: accepted into the windows, or rejected (malformed, inconsistent, over a cap)',
    kind: 'counter',
    attributes: [ingestResult],
    prometheus: 'lanewatch_processor_ingest_points_total',
  },
  ingestRequests: {
    name: 'lanewatch.processor.ingest.requests',
    unit: '{request}',
    description: 'Requests to POST /v1/metrics, by the HTTP status they were answered with',
    kind: 'counter',
    attributes: [statusCode],
    prometheus: 'lanewatch_processor_ingest_requests_total',
  },
} as const satisfies Readonly<Record<string, InstrumentName>>;

export type InstrumentKey = keyof typeof PROCESSOR_INSTRUMENT;
