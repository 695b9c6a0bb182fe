// Every series and label the dashboards query, derived from the names the code records under: the
// instrumentation's (`@lanewatch/instrumentation/names`) and the processor's (`PROCESSOR_INSTRUMENT`).
// A renamed instrument or attribute changes the queries on the next `npm run dashboards`, and the
// committed JSON then differs from the generator's output: a test fails until they are regenerated.
import { ATTR, METRIC, MILESTONE_METRIC, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import { PROCESSOR_INSTRUMENT, TELEMETRY_ATTR } from '@lanewatch/processor';
import { prometheusLabel, prometheusSeriesName } from './prometheus-name.ts';

export { MILESTONES, type Milestone };

/**
 * Units as the instrumentation creates its instruments (packages/instrumentation/src/call-telemetry.ts).
 * names.ts does not carry them; a unit changed there without here shows up as a series missing from
 * Prometheus in test/e2e/pipeline.test.ts.
 */
const MILESTONE_UNIT = 's';
const TOKEN_USAGE_UNIT = '{token}';
const OUTPUT_SPEED_UNIT = '{token}/s';

/** The native-histogram series of each milestone (seconds from dispatch). */
export const MILESTONE_SERIES: Readonly<Record<Milestone, string>> = Object.fromEntries(
  MILESTONES.map((m) => [m, prometheusSeriesName(MILESTONE_METRIC[m], MILESTONE_UNIT, 'histogram')]),
) as Record<Milestone, string>;

export const TOKEN_USAGE_SERIES = prometheusSeriesName(METRIC.tokenUsage, TOKEN_USAGE_UNIT, 'histogram');
export const OUTPUT_SPEED_SERIES = prometheusSeriesName(
  METRIC.outputTokensPerSecond,
  OUTPUT_SPEED_UNIT,
  'histogram',
);

/** Every native-histogram series of the instrumentation. */
export const INSTRUMENTATION_SERIES: readonly string[] = [
  ...MILESTONES.map((m) => MILESTONE_SERIES[m]),
  TOKEN_USAGE_SERIES,
  OUTPUT_SPEED_SERIES,
];

/** The processor's series, as its instrument table names them (and as prometheusSeriesName derives them). */
export const PROCESSOR_SERIES = Object.fromEntries(
  Object.entries(PROCESSOR_INSTRUMENT).map(([key, instrument]) => [key, instrument.prometheus]),
) as { readonly [K in keyof typeof PROCESSOR_INSTRUMENT]: string };

/** Labels of the instrumentation's series. */
export const LABEL = {
  job: 'job',
  lane: prometheusLabel(ATTR.lane),
  model: prometheusLabel(ATTR.requestModel),
  outcome: prometheusLabel(ATTR.outcome),
  errorType: prometheusLabel(ATTR.errorType),
  outputKind: prometheusLabel(ATTR.outputKind),
  tokenType: prometheusLabel(ATTR.tokenType),
} as const;

/** Labels of the processor's series. */
export const PROCESSOR_LABEL = {
  job: 'job',
  lane: prometheusLabel(TELEMETRY_ATTR.lane),
  state: prometheusLabel(TELEMETRY_ATTR.state),
  milestone: prometheusLabel(TELEMETRY_ATTR.milestone),
  quantile: prometheusLabel(TELEMETRY_ATTR.quantile),
  rate: prometheusLabel(TELEMETRY_ATTR.rate),
  decision: prometheusLabel(TELEMETRY_ATTR.decision),
  reason: prometheusLabel(TELEMETRY_ATTR.reason),
  ingestResult: prometheusLabel(TELEMETRY_ATTR.ingestResult),
  statusCode: prometheusLabel(TELEMETRY_ATTR.statusCode),
} as const;

/**
 * How a panel title names each milestone (DESIGN §1: "TTFT" alone is ambiguous). The words of the
 * design's vocabulary, with the underscore read as a space.
 */
export const MILESTONE_TITLE: Readonly<Record<Milestone, string>> = {
  headers: 'headers',
  first_chunk: 'first chunk',
  first_output: 'first output',
  first_text: 'first text',
  end: 'end',
};

/** "Time to first text", "Time to end (whole call)": the heading of a panel about one milestone. */
export function milestoneHeading(m: Milestone): string {
  return m === 'end' ? 'Time to end (whole call)' : `Time to ${MILESTONE_TITLE[m]}`;
}
