import { MILESTONE_QUANTILE_KEY, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import type { Attributes } from '@opentelemetry/api';
import { LANE_STATES, type LaneHealth } from '../evaluation/lane-health.ts';
import { type InstrumentKey, QUANTILES, RATES, STATE_CODE, TELEMETRY_ATTR } from './instrument-names.ts';

/** One gauge value a lane record stands for. */
export interface LanePoint {
  readonly instrument: InstrumentKey;
  readonly value: number;
  readonly attributes: Attributes;
}

const MILESTONE_OF_KEY: ReadonlyMap<string, Milestone> = new Map(
  MILESTONES.map((m) => [MILESTONE_QUANTILE_KEY[m], m]),
);

/** The milestone word for a record's quantile key (`time_to_first_output` → `first_output`). */
export function milestoneOfKey(key: string | null): Milestone | undefined {
  return key === null ? undefined : MILESTONE_OF_KEY.get(key);
}

/**
 * Every gauge point of one lane record. What the record does not know (a `null` hint, a milestone with
 * no successful call) has no point: absent is never 0 (DESIGN §1). Only the lane name, fixed words and
 * numbers leave the record: no reasons, models or providers.
 */
export function lanePointsOf(record: LaneHealth): LanePoint[] {
  const lane = { [TELEMETRY_ATTR.lane]: record.lane };
  const points: LanePoint[] = [];
  const add = (instrument: InstrumentKey, value: number, attributes: Attributes = {}) => {
    if (Number.isFinite(value)) points.push({ instrument, value, attributes: { ...lane, ...attributes } });
  };
  const addOnMilestone = (instrument: InstrumentKey, value: number | null, key: string | null) => {
    const milestone = milestoneOfKey(key);
    if (value !== null && milestone !== undefined)
      add(instrument, value, { [TELEMETRY_ATTR.milestone]: milestone });
  };

  for (const state of LANE_STATES) {
    add('laneState', state === record.state ? 1 : 0, { [TELEMETRY_ATTR.state]: state });
  }
  add('laneStateCode', STATE_CODE[record.state]);
  add('laneSamples', record.samples);
  for (const milestone of MILESTONES) {
    const quantiles = record.quantiles[MILESTONE_QUANTILE_KEY[milestone]];
    if (!quantiles) continue;
    add('laneMilestoneSamples', quantiles.samples, { [TELEMETRY_ATTR.milestone]: milestone });
    for (const q of QUANTILES) {
      add('laneQuantile', quantiles[q], {
        [TELEMETRY_ATTR.milestone]: milestone,
        [TELEMETRY_ATTR.quantile]: q,
      });
    }
  }
  addOnMilestone('laneTailRatio', record.tail_ratio, record.tail_ratio_milestone);
  for (const rate of RATES) add('laneRate', record.rates[rate], { [TELEMETRY_ATTR.rate]: rate });
  addOnMilestone('laneCutoff', record.cutoffs.first_output_s, MILESTONE_QUANTILE_KEY.first_output);
  addOnMilestone('laneCutoff', record.cutoffs.total_s, MILESTONE_QUANTILE_KEY.end);
  addOnMilestone('laneHedgeDelay', record.hedge.after_s, record.hedge.milestone);
  add('laneHedgeAllowed', record.hedge.allowed ? 1 : 0);
  addOnMilestone('laneExpectedCost', record.expected_cost_s, record.expected_cost_milestone);
  return points;
}
