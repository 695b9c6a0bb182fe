// "lanewatch — lanes": what the instrumentation measured, per lane, from the native histograms.
import type { DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { barGaugePanel, labelVariable, lanewatchDashboard, type Target, timeseriesPanel } from './panels.ts';
import {
  byVariable,
  histogramCountRate,
  histogramQuantile,
  histogramSumRate,
  type Matcher,
  percentile,
  VAR,
  WHOLE_RANGE,
} from './promql.ts';
import {
  LABEL,
  MILESTONE_SERIES,
  MILESTONE_TITLE,
  MILESTONES,
  type Milestone,
  milestoneHeading,
  OUTPUT_SPEED_SERIES,
  TOKEN_USAGE_SERIES,
} from './series.ts';

export const LANES_DASHBOARD_UID = 'lanewatch-lanes';

const QUANTILES = [0.5, 0.95, 0.99] as const;
const CALLS = MILESTONE_SERIES.end;

/** What the viewer picked: service, lane, model. */
const picked: readonly Matcher[] = [
  byVariable(LABEL.job, VAR.job),
  byVariable(LABEL.lane, VAR.lane),
  byVariable(LABEL.model, VAR.model),
];
/** Quantiles are of successful calls: a fast 429 would make a lane look fast (as the processor does). */
const ok: readonly Matcher[] = [...picked, [LABEL.outcome, '=', 'ok']];

function quantilePanel(m: Milestone) {
  return timeseriesPanel({
    title: `${milestoneHeading(m)} — p50 · p95 · p99 per lane`,
    description:
      `Seconds from dispatch to ${MILESTONE_TITLE[m]}, successful calls only (outcome="ok"), from the native ` +
      `histogram ${MILESTONE_SERIES[m]} over $__rate_interval.`,
    unit: 's',
    width: 12,
    targets: QUANTILES.map((q) => ({
      expr: histogramQuantile(q, MILESTONE_SERIES[m], ok, [LABEL.lane]),
      legend: `{{${LABEL.lane}}} ${percentile(q)}`,
    })),
  });
}

function breakdownPanel() {
  const targets: Target[] = MILESTONES.flatMap((m) =>
    [0.5, 0.95].map((q) => ({
      expr: histogramQuantile(q, MILESTONE_SERIES[m], ok, [], WHOLE_RANGE),
      legend: `${MILESTONE_TITLE[m]} ${percentile(q)}`,
      instant: true,
    })),
  );
  return barGaugePanel({
    title: `Milestone breakdown of lane $${VAR.lane}: ${MILESTONES.map((m) => MILESTONE_TITLE[m]).join(' → ')} (p50, p95)`,
    description:
      'One lane, every milestone over the picked time range, successful calls only: where the time goes ' +
      '(before headers, headers → first output, first output → first text, first text → end). Repeated for each picked lane.',
    unit: 's',
    width: 12,
    height: 9,
    targets,
    repeatFor: VAR.lane,
  });
}

function tailRatioPanel() {
  const ratio = (m: Milestone) =>
    `${histogramQuantile(0.99, MILESTONE_SERIES[m], ok, [LABEL.lane])} / ${histogramQuantile(0.5, MILESTONE_SERIES[m], ok, [LABEL.lane])}`;
  return timeseriesPanel({
    title: `Tail ratio p99 / p50 per lane — ${MILESTONE_TITLE.first_text} and ${MILESTONE_TITLE.end}`,
    description:
      'How far the tail reaches past the typical call: two lanes with the same median and a different ratio ' +
      'need different cutoffs. Successful calls only.',
    unit: 'none',
    targets: [
      { expr: ratio('first_text'), legend: `{{${LABEL.lane}}} ${MILESTONE_TITLE.first_text}` },
      { expr: ratio('end'), legend: `{{${LABEL.lane}}} ${MILESTONE_TITLE.end}` },
    ],
  });
}

function callsPanel() {
  return timeseriesPanel({
    title: 'Calls per second by lane and outcome (counted at end)',
    description: `Observations of ${CALLS}: every call has an end, whatever its outcome.`,
    unit: 'reqps',
    targets: [
      {
        expr: histogramCountRate(CALLS, picked, [LABEL.lane, LABEL.outcome]),
        legend: `{{${LABEL.lane}}} {{${LABEL.outcome}}}`,
      },
    ],
  });
}

function errorRatioPanel() {
  const errors = histogramCountRate(CALLS, [...picked, [LABEL.outcome, '=', 'error']], [LABEL.lane]);
  const limited = histogramCountRate(
    CALLS,
    [...picked, [LABEL.errorType, '=', 'rate_limited']],
    [LABEL.lane],
  );
  const all = histogramCountRate(CALLS, picked, [LABEL.lane]);
  return timeseriesPanel({
    title: 'Error and 429 ratio per lane (share of calls, counted at end)',
    description:
      'Errors (outcome="error": HTTP ≥ 400, network failures, in-stream errors) and 429s (error.type="rate_limited") ' +
      'as a share of all calls. Cancelled calls are not errors.',
    unit: 'percentunit',
    // A lane with no error (or no 429) yet has no series to divide: `or … * 0` makes it 0 %, not absent.
    targets: [
      { expr: `(${errors} or ${all} * 0) / ${all}`, legend: `{{${LABEL.lane}}} errors` },
      { expr: `(${limited} or ${all} * 0) / ${all}`, legend: `{{${LABEL.lane}}} 429` },
    ],
  });
}

function errorTypesPanel() {
  return timeseriesPanel({
    title: 'Errors per second by lane and error.type (counted at end)',
    description:
      'Failed calls by class: rate_limited (429), http_5xx, timeout, connection_reset, stream_error:<type>, …',
    unit: 'reqps',
    targets: [
      {
        expr: histogramCountRate(
          CALLS,
          [...picked, [LABEL.outcome, '=', 'error']],
          [LABEL.lane, LABEL.errorType],
        ),
        legend: `{{${LABEL.lane}}} {{${LABEL.errorType}}}`,
      },
    ],
  });
}

function outputSpeedPanel() {
  return timeseriesPanel({
    title: `Output speed per call, tokens/s from ${MILESTONE_TITLE.first_text} to ${MILESTONE_TITLE.end} — p50 and p5 per lane`,
    description: `Output tokens ÷ (end − first text) of each call (${OUTPUT_SPEED_SERIES}); p5 is the slowest twentieth.`,
    unit: 'none',
    targets: [0.5, 0.05].map((q) => ({
      expr: histogramQuantile(q, OUTPUT_SPEED_SERIES, picked, [LABEL.lane]),
      legend: `{{${LABEL.lane}}} ${percentile(q)}`,
    })),
  });
}

function tokenThroughputPanel() {
  return timeseriesPanel({
    title: `Tokens per second through each lane, input and output (usage reported at ${MILESTONE_TITLE.end})`,
    description: `Sum of the token counts each stream reported (${TOKEN_USAGE_SERIES}), per second.`,
    unit: 'none',
    targets: [
      {
        expr: histogramSumRate(TOKEN_USAGE_SERIES, picked, [LABEL.lane, LABEL.tokenType]),
        legend: `{{${LABEL.lane}}} {{${LABEL.tokenType}}}`,
      },
    ],
  });
}

function outputKindPanel() {
  return timeseriesPanel({
    title: `What arrives at ${MILESTONE_TITLE.first_output}: text, reasoning or tool call (calls per second)`,
    description:
      'A lane whose first output is reasoning or a tool call reaches first text later: compare with the breakdown.',
    unit: 'reqps',
    targets: [
      {
        expr: histogramCountRate(MILESTONE_SERIES.first_output, ok, [LABEL.lane, LABEL.outputKind]),
        legend: `{{${LABEL.lane}}} {{${LABEL.outputKind}}}`,
      },
    ],
  });
}

export function lanesDashboard(): DashboardBuilder {
  const anyCall = MILESTONE_SERIES.end;
  const dashboard = lanewatchDashboard(
    'lanewatch — lanes',
    LANES_DASHBOARD_UID,
    'Streaming LLM calls per lane as @lanewatch/instrumentation measured them: every milestone from dispatch, ' +
      'tails, errors, tokens.',
    ['llm', 'latency'],
  )
    .withVariable(
      labelVariable({
        name: VAR.job,
        label: 'Service',
        description: 'service.name of the instrumented apps (Prometheus job)',
        selector: anyCall,
        labelName: LABEL.job,
      }),
    )
    .withVariable(
      labelVariable({
        name: VAR.lane,
        label: 'Lane',
        description: 'lanewatch.lane: a configured lane, else provider/model',
        selector: `${anyCall}{${LABEL.job}=~"$${VAR.job}"}`,
        labelName: LABEL.lane,
      }),
    )
    .withVariable(
      labelVariable({
        name: VAR.model,
        label: 'Model',
        description: 'gen_ai.request.model as the calls sent it',
        selector: `${anyCall}{${LABEL.job}=~"$${VAR.job}", ${LABEL.lane}=~"$${VAR.lane}"}`,
        labelName: LABEL.model,
      }),
    )
    .withRow(new RowBuilder('Every milestone, per lane (p50 · p95 · p99)'));
  for (const m of MILESTONES) dashboard.withPanel(quantilePanel(m));
  dashboard.withPanel(tailRatioPanel());
  dashboard.withRow(new RowBuilder('One lane, milestone by milestone'));
  dashboard.withPanel(breakdownPanel());
  dashboard.withRow(new RowBuilder('Outcomes, errors and 429s'));
  dashboard.withPanel(callsPanel()).withPanel(errorRatioPanel()).withPanel(errorTypesPanel());
  dashboard.withRow(new RowBuilder('Tokens'));
  dashboard.withPanel(outputSpeedPanel()).withPanel(tokenThroughputPanel()).withPanel(outputKindPanel());
  return dashboard;
}
