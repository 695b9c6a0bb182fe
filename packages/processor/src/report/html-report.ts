import type { ReportData, ReportLane } from './report-data.ts';
import { escapeXml, formatSeconds, laneChart, MILESTONE_ROWS, meansVersusTails } from './svg-charts.ts';

const STATE_COLORS: Readonly<Record<string, string>> = {
  healthy: '#2f8f46',
  degraded: '#c98a00',
  saturated: '#d35400',
  down: '#c0392b',
  unknown: '#7d8794',
};

const STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d232b; margin: 24px auto; max-width: 1020px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 6px; }
.sub { color: #5a6470; margin: 0 0 12px; }
.notes li { margin: 2px 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; margin: 8px 0 4px; }
th, td { text-align: right; padding: 3px 5px; border-bottom: 1px solid #e3e7eb; white-space: nowrap; }
th { white-space: normal; vertical-align: bottom; font-weight: 600; }
th:first-child, td:first-child, td.text, th.text { text-align: left; }
.state { display: inline-block; color: #fff; border-radius: 3px; padding: 0 6px; font-size: 12px; }
.lane { border-top: 1px solid #d5dbe1; margin-top: 22px; }
.lane h2 { display: flex; gap: 10px; align-items: baseline; }
.lane .role { color: #5a6470; font-weight: normal; font-size: 13px; }
.hints { font-size: 13px; color: #39424c; margin: 4px 0 6px; }
.reasons { font-size: 12px; color: #5a6470; margin: 2px 0 0 18px; padding: 0; }
svg text { font-family: system-ui, "DejaVu Sans", sans-serif; }
svg .axis { stroke: #8a949e; stroke-width: 1; }
svg .grid { stroke: #eef1f4; stroke-width: 1; }
svg .tick { font-size: 10px; fill: #5a6470; }
svg .rowlabel { font-size: 12px; fill: #1d232b; }
svg .legend { font-size: 11.5px; fill: #1d232b; }
svg .ql { fill: #5a6470; font-weight: 600; }
svg .qtag { font-size: 8.5px; fill: #39424c; }
svg .marker { stroke: #1d232b; stroke-width: 1.4; }
svg .mean { fill: #c0392b; }
svg .tailbar { fill: #9fb7cf; }
.key { font-size: 12px; color: #5a6470; }
`;

function stateBadge(state: string): string {
  return `<span class="state" style="background:${STATE_COLORS[state] ?? '#7d8794'}">${escapeXml(state)}</span>`;
}

function percent(x: number): string {
  return x === 0 ? '0 %' : `${(x * 100).toPrecision(2)} %`;
}

function summaryTable(lanes: readonly ReportLane[]): string {
  const head = [
    '<th>lane</th><th class="text">format</th><th class="text">state</th><th>samples</th>',
    '<th>p95 first text</th><th>cost to first text</th><th>cost of whole answer</th>',
    '<th>cutoffs first output / total</th><th>hedge after</th><th>429s</th><th>jobs admitted</th><th>passed over</th>',
  ].join('');
  const rows = lanes.map((l) => {
    const p95 = (key: string) => formatSeconds(l.milestones[key]?.p95);
    const hedge =
      l.hedge.after_s === null ? '–' : `${formatSeconds(l.hedge.after_s)}${l.hedge.allowed ? '' : ' (off)'}`;
    return (
      `<tr><td>${escapeXml(l.lane)}</td><td class="text">${escapeXml(l.format)}</td><td class="text">${stateBadge(l.state)}</td>` +
      `<td>${l.samples}</td><td>${p95('time_to_first_text')}</td>` +
      `<td>${formatSeconds(l.first_text_cost_s)}</td><td>${formatSeconds(l.expected_cost_s)}</td>` +
      `<td>${formatSeconds(l.cutoffs.first_output_s)} / ${formatSeconds(l.cutoffs.total_s)}</td><td>${hedge}</td>` +
      `<td>${percent(l.rate_limited)}</td><td>${l.admitted}</td><td>${l.passed_over}</td></tr>`
    );
  });
  return `<table class="summary"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function laneSection(lane: ReportLane, edges: readonly number[]): string {
  const hedge =
    lane.hedge.after_s === null
      ? 'no hedge delay yet'
      : `hedge after ${formatSeconds(lane.hedge.after_s)} (${lane.hedge.allowed ? 'allowed now' : 'not now'})`;
  return [
    `<section class="lane" id="lane-${escapeXml(lane.lane)}">`,
    `<h2>${escapeXml(lane.lane)} ${stateBadge(lane.state)} <span class="role">${escapeXml(lane.format)} · ${escapeXml(lane.description)}</span></h2>`,
    `<p class="hints">${lane.samples} calls in the window (min_samples ${lane.min_samples}) · expected cost ${formatSeconds(lane.expected_cost_s)} for a whole answer, ${formatSeconds(lane.first_text_cost_s)} to first text · cutoffs: first output ${formatSeconds(lane.cutoffs.first_output_s)}, total ${formatSeconds(lane.cutoffs.total_s)} · ${hedge} · 429 ${percent(lane.rate_limited)}, errors ${percent(lane.error_rate)} · jobs admitted ${lane.admitted}, passed over ${lane.passed_over}</p>`,
    laneChart(lane, edges),
    lane.reasons.length > 0
      ? `<ul class="reasons">${lane.reasons.map((r) => `<li>${escapeXml(r)}</li>`).join('')}</ul>`
      : '',
    '</section>',
  ].join('\n');
}

/**
 * The report as one HTML document: inline CSS and inline SVG, no script, no font, no image, no link to
 * anything outside it, so it opens from disk anywhere and can be mailed as it is.
 */
export function htmlReport(data: ReportData): string {
  const firstText = MILESTONE_ROWS.find((r) => r.key === 'time_to_first_text');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeXml(data.title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeXml(data.title)}</h1>`,
    `<p class="sub">${escapeXml(data.subtitle)} · generated ${escapeXml(data.generated_at)}</p>`,
    data.notes.length > 0
      ? `<ul class="notes">${data.notes.map((n) => `<li>${escapeXml(n)}</li>`).join('')}</ul>`
      : '',
    summaryTable(data.lanes),
    `<h2>Averages alike, tails not: ${firstText?.label ?? 'first_text'} per lane</h2>`,
    '<p class="key">Red triangle: the mean. Bar: p50 to p95. Dotted tick: p99. Log scale, seconds from dispatch.</p>',
    meansVersusTails(data.lanes, 'time_to_first_text', data.edges),
    '<h2>Milestone distributions</h2>',
    '<p class="key">Per lane and milestone, the share of successful calls in each bin of a common log axis; solid line p50, dashed p95, dotted p99 (tags 50, 95, 99), triangle the mean. headers → first_chunk → first_output → first_text → end, each measured from dispatch on the caller’s clock.</p>',
    ...data.lanes.map((lane) => laneSection(lane, data.edges)),
    '</body></html>',
    '',
  ].join('\n');
}
