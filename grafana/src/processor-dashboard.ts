// "lanewatch — lane hints": what the processor concluded (states, quantiles, cutoffs, hedging, expected
// cost) and what admission did with it, from the processor's own metrics (packages/processor README,
// "The processor's own metrics").

import type { DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { STATE_CODE } from '@lanewatch/processor';
import { labelVariable, lanewatchDashboard, stateTimelinePanel, timeseriesPanel } from './panels.ts';
import { byVariable, counterRate, type Matcher, selector, VAR } from './promql.ts';
import {
  MILESTONE_TITLE,
  MILESTONES,
  type Milestone,
  milestoneHeading,
  PROCESSOR_LABEL,
  PROCESSOR_SERIES,
} from './series.ts';

export const PROCESSOR_DASHBOARD_UID = 'lanewatch-lane-hints';

const L = PROCESSOR_LABEL;
const S = PROCESSOR_SERIES;

const lanes: readonly Matcher[] = [byVariable(L.job, VAR.processor), byVariable(L.lane, VAR.lane)];
const milestoneIs = (m: Milestone): Matcher => [L.milestone, '=', m];

/** Colours of the states, worse is warmer (the state code's order). */
const STATE_COLOR: Readonly<Record<keyof typeof STATE_CODE, string>> = {
  unknown: 'text',
  healthy: 'green',
  degraded: 'yellow',
  saturated: 'orange',
  down: 'red',
};

function statePanel() {
  const states = Object.entries(STATE_CODE).map(
    ([state, code]) => [code, state, STATE_COLOR[state as keyof typeof STATE_CODE]] as const,
  );
  return stateTimelinePanel({
    title: `Lane state: ${Object.keys(STATE_CODE).join(' · ')}`,
    description:
      'The processor’s verdict per lane, with hysteresis (3 evaluations to enter a worse state, or at once on strong evidence; 6 to leave it).',
    unit: 'none',
    states,
    targets: [
      {
        expr: `max by (${L.lane}) (${selector(S.laneStateCode, lanes)})`,
        legend: `{{${L.lane}}}`,
      },
    ],
  });
}

function samplesPanel() {
  return timeseriesPanel({
    title: 'Calls in the processor’s window per lane',
    description:
      'Every outcome counts. Below min_samples (50 by default) a lane is unknown and has no hints.',
    unit: 'none',
    targets: [{ expr: selector(S.laneSamples, lanes), legend: `{{${L.lane}}}` }],
  });
}

function quantilePanel(m: Milestone) {
  return timeseriesPanel({
    title: `${milestoneHeading(m)}, as the processor sees it — p50 · p95 · p99 per lane`,
    description:
      `What the hints are computed from: the quantiles of ${MILESTONE_TITLE[m]} over the processor’s sliding ` +
      'window, within the histograms’ relative-error bound.',
    unit: 's',
    targets: [
      {
        expr: selector(S.laneQuantile, [...lanes, milestoneIs(m)]),
        legend: `{{${L.lane}}} {{${L.quantile}}}`,
      },
    ],
  });
}

function cutoffPanel() {
  return timeseriesPanel({
    title: `Recommended cutoffs per lane: ${MILESTONE_TITLE.first_output} and ${MILESTONE_TITLE.end} (total)`,
    description: 'max(floor, 1.5 × p95 of successful calls): give up waiting after this long and try again.',
    unit: 's',
    targets: (['first_output', 'end'] as const).map((m) => ({
      expr: selector(S.laneCutoff, [...lanes, milestoneIs(m)]),
      legend: `{{${L.lane}}} ${MILESTONE_TITLE[m]} cutoff`,
    })),
  });
}

function hedgeDelayPanel() {
  return timeseriesPanel({
    title: 'Hedge delay per lane, on its primary milestone (named in the legend)',
    description:
      'p95 of the lane’s primary milestone (first output, else first chunk, else headers): a second ' +
      'attempt fired after this long wins about one call in twenty.',
    unit: 's',
    targets: [{ expr: selector(S.laneHedgeDelay, lanes), legend: `{{${L.lane}}} after {{${L.milestone}}}` }],
  });
}

function hedgeAllowedPanel() {
  return stateTimelinePanel({
    title: 'Hedging allowed per lane',
    description: 'Never while a lane is unknown, saturated or down: a 429 asks for less load, not more.',
    unit: 'none',
    height: 5,
    states: [
      [1, 'allowed', 'green'],
      [0, 'not allowed', 'orange'],
    ],
    targets: [{ expr: selector(S.laneHedgeAllowed, lanes), legend: `{{${L.lane}}}` }],
  });
}

function expectedCostPanel() {
  return timeseriesPanel({
    title: 'Expected cost per lane: p95 × (1 + retry rate) + handoff, on the milestone in the legend',
    description:
      'What admission compares with a job’s deadline; the milestone is end (the whole call) by default.',
    unit: 's',
    targets: [{ expr: selector(S.laneExpectedCost, lanes), legend: `{{${L.lane}}} {{${L.milestone}}}` }],
  });
}

function tailRatioPanel() {
  return timeseriesPanel({
    title: 'Tail ratio p99 / p50 per lane, on its primary milestone (named in the legend)',
    description: 'The processor’s tail ratio, taken on the milestone the hedge delay uses.',
    unit: 'none',
    targets: [{ expr: selector(S.laneTailRatio, lanes), legend: `{{${L.lane}}} {{${L.milestone}}}` }],
  });
}

function ratesPanel() {
  return timeseriesPanel({
    title:
      'Rates per lane in the processor’s window: error, rate_limited (429), timeout, cancelled, truncated, retry',
    description:
      'Fractions of the window’s calls. error counts every error outcome, 429s and timeouts included.',
    unit: 'percentunit',
    targets: [{ expr: selector(S.laneRate, lanes), legend: `{{${L.lane}}} {{${L.rate}}}` }],
  });
}

function admissionPanel() {
  return timeseriesPanel({
    title: 'Admission decisions per second by decision and reason',
    description:
      'Counted where admit() runs (any service with an OpenTelemetry SDK): admitted within_budget, or refused ' +
      'over_budget, no_eligible_lane, no_lanes. Not filtered by lane: a refusal has none.',
    unit: 'ops',
    targets: [
      {
        expr: counterRate(S.admissionDecisions, [], [L.decision, L.reason]),
        legend: `{{${L.decision}}} {{${L.reason}}}`,
      },
    ],
  });
}

function admittedPanel() {
  return timeseriesPanel({
    title: 'Jobs admitted per second, by the lane chosen',
    description:
      'Where admission sends work: the cheapest eligible lane whose expected cost fits the deadline.',
    unit: 'ops',
    targets: [
      {
        expr: counterRate(
          S.admissionDecisions,
          [[L.decision, '=', 'admitted'], byVariable(L.lane, VAR.lane)],
          [L.lane],
        ),
        legend: `{{${L.lane}}}`,
      },
    ],
  });
}

function ingestPanel() {
  return timeseriesPanel({
    title: 'Processor ingest: histogram points and requests per second',
    description:
      'Points accepted into the windows or rejected (malformed, inconsistent, over a cap), and POST /v1/metrics by status.',
    unit: 'ops',
    targets: [
      {
        expr: counterRate(S.ingestPoints, [byVariable(L.job, VAR.processor)], [L.ingestResult]),
        legend: `points {{${L.ingestResult}}}`,
      },
      {
        expr: counterRate(S.ingestRequests, [byVariable(L.job, VAR.processor)], [L.statusCode]),
        legend: `requests {{${L.statusCode}}}`,
      },
    ],
  });
}

export function processorDashboard(): DashboardBuilder {
  const dashboard = lanewatchDashboard(
    'lanewatch — lane hints',
    PROCESSOR_DASHBOARD_UID,
    'What lanewatch serve concluded per lane — state, quantiles, cutoffs, hedging, expected cost — and the ' +
      'admission decisions taken on it.',
    ['llm', 'routing'],
  )
    .withVariable(
      labelVariable({
        name: VAR.processor,
        label: 'Processor',
        description: 'service.name of the lanewatch processor (Prometheus job)',
        selector: S.laneStateCode,
        labelName: L.job,
      }),
    )
    .withVariable(
      labelVariable({
        name: VAR.lane,
        label: 'Lane',
        description: 'lanewatch.lane, as the processor judges it',
        selector: `${S.laneStateCode}{${L.job}=~"$${VAR.processor}"}`,
        labelName: L.lane,
      }),
    )
    .withRow(new RowBuilder('States'))
    .withPanel(statePanel())
    .withPanel(samplesPanel())
    .withPanel(ratesPanel())
    .withRow(new RowBuilder('Quantiles the hints come from'));
  for (const m of MILESTONES) dashboard.withPanel(quantilePanel(m));
  dashboard.withPanel(tailRatioPanel());
  dashboard.withRow(new RowBuilder('Hints: cutoffs, hedging, expected cost'));
  dashboard
    .withPanel(cutoffPanel())
    .withPanel(hedgeDelayPanel())
    .withPanel(expectedCostPanel())
    .withPanel(hedgeAllowedPanel());
  dashboard.withRow(new RowBuilder('Admission and ingest'));
  dashboard.withPanel(admissionPanel()).withPanel(admittedPanel()).withPanel(ingestPanel());
  return dashboard;
}
