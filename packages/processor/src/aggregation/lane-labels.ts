import {
  ATTR,
  METRIC,
  MILESTONE_METRIC,
  MILESTONES,
  type Milestone,
  OUTCOMES,
  type Outcome,
} from '@lanewatch/instrumentation';
import type { AttributeValue } from '../otlp/histogram-point.ts';

// What a data point says about its lane: which series it feeds and under which labels.

export type LaneSeries =
  | { readonly kind: 'milestone'; readonly milestone: Milestone }
  | { readonly kind: 'tokensPerSecond' };

const SERIES_BY_METRIC = new Map<string, LaneSeries>([
  ...MILESTONES.map((milestone): [string, LaneSeries] => [
    MILESTONE_METRIC[milestone],
    { kind: 'milestone', milestone },
  ]),
  [METRIC.outputTokensPerSecond, { kind: 'tokensPerSecond' }],
]);

/** The series a metric feeds, or `undefined` for metrics the lane windows do not use. */
export function laneSeriesOf(metricName: string): LaneSeries | undefined {
  return SERIES_BY_METRIC.get(metricName);
}

export function isLaneMetric(metricName: string): boolean {
  return SERIES_BY_METRIC.has(metricName);
}

export interface LaneLabels {
  readonly lane: string;
  /** `lanewatch.size_class`, or '' when absent (the call then counts for the lane as a whole only). */
  readonly sizeClass: string;
  /** `lanewatch.outcome` when it is one of the known outcomes, else `undefined`. */
  readonly outcome: Outcome | undefined;
  readonly errorType: string | undefined;
  /** `lanewatch.attempt` above 1 (`2`, `3`, `4+`). */
  readonly retry: boolean;
  readonly model: string | undefined;
  readonly provider: string | undefined;
}

function text(v: AttributeValue | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : String(v);
}

const KNOWN_OUTCOMES: ReadonlySet<string> = new Set(OUTCOMES);

/**
 * Labels of a point, or `undefined` when it names no lane. As in the instrumentation, a point
 * without `lanewatch.lane` belongs to the lane `provider/model` when both are known.
 */
export function laneLabelsOf(attributes: Readonly<Record<string, AttributeValue>>): LaneLabels | undefined {
  const provider = text(attributes[ATTR.providerName]);
  const model = text(attributes[ATTR.requestModel]);
  const lane = text(attributes[ATTR.lane]) ?? (provider && model ? `${provider}/${model}` : undefined);
  if (lane === undefined) return undefined;
  const outcome = text(attributes[ATTR.outcome]);
  const attempt = text(attributes[ATTR.attempt]);
  return {
    lane,
    sizeClass: text(attributes[ATTR.sizeClass]) ?? '',
    outcome: outcome !== undefined && KNOWN_OUTCOMES.has(outcome) ? (outcome as Outcome) : undefined,
    errorType: text(attributes[ATTR.errorType]),
    retry: attempt !== undefined && attempt !== '1',
    model,
    provider,
  };
}
