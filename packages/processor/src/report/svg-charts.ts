import type { ReportLane, ReportMilestone } from './report-data.ts';

// Inline SVG, written by hand: no chart library, no external asset, readable without scripts.

export const MILESTONE_ROWS = [
  { key: 'time_to_headers', label: 'headers', color: '#7d8794' },
  { key: 'time_to_first_chunk', label: 'first_chunk', color: '#5b8db8' },
  { key: 'time_to_first_output', label: 'first_output', color: '#d9822b' },
  { key: 'time_to_first_text', label: 'first_text', color: '#2f8f46' },
  { key: 'duration', label: 'end', color: '#8a4fb0' },
] as const;

const QUANTILE_DASH: Readonly<Record<string, string>> = { p50: '', p95: '5 3', p99: '1.5 2.5' };

export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const n = (x: number) => (Math.round(x * 10) / 10).toString();

export function formatSeconds(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (x < 0.995) return `${(x * 1000).toPrecision(3).replace(/\.0+$/, '')} ms`;
  if (x < 9.995) return `${x.toFixed(2)} s`;
  return `${x.toPrecision(3)} s`;
}

/** x position of `seconds` on a log axis from edges[0] to edges[last] mapped onto [x0, x1]. */
export function logScale(edges: readonly number[], x0: number, x1: number): (seconds: number) => number {
  const low = Math.log(edges[0] as number);
  const high = Math.log(edges[edges.length - 1] as number);
  return (s) => x0 + ((Math.log(Math.max(s, edges[0] as number)) - low) / (high - low)) * (x1 - x0);
}

/** 1-2-5 ticks within the axis. */
export function ticksOf(edges: readonly number[]): number[] {
  const low = edges[0] as number;
  const high = edges[edges.length - 1] as number;
  const ticks: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(low)); decade <= high; decade *= 10) {
    for (const m of [1, 2, 5]) {
      const t = Number((m * decade).toPrecision(3));
      if (t >= low * (1 - 1e-9) && t <= high * (1 + 1e-9)) ticks.push(t);
    }
  }
  return ticks;
}

function tickLabel(t: number): string {
  return t < 1 ? `${Number((t * 1000).toPrecision(3))} ms` : `${t} s`;
}

function axis(edges: readonly number[], x: (s: number) => number, y: number, top: number): string {
  const parts = [
    `<line x1="${n(x(edges[0] as number))}" y1="${y}" x2="${n(x(edges.at(-1) as number))}" y2="${y}" class="axis"/>`,
  ];
  for (const t of ticksOf(edges)) {
    const px = n(x(t));
    parts.push(
      `<line x1="${px}" y1="${top}" x2="${px}" y2="${y}" class="grid"/>`,
      `<text x="${px}" y="${y + 13}" class="tick" text-anchor="middle">${tickLabel(t)}</text>`,
    );
  }
  return parts.join('');
}

function milestoneRow(
  m: ReportMilestone,
  row: (typeof MILESTONE_ROWS)[number],
  edges: readonly number[],
  x: (s: number) => number,
  top: number,
  height: number,
  legendX: number,
): string {
  const parts: string[] = [];
  const max = Math.max(...m.shares, 1e-9);
  const base = top + height;
  m.shares.forEach((share, i) => {
    if (share <= 0) return;
    const left = x(edges[i] as number);
    const right = x(edges[i + 1] as number);
    const h = Math.max(1, (share / max) * (height - 12));
    parts.push(
      `<rect x="${n(left)}" y="${n(base - h)}" width="${n(Math.max(0.8, right - left - 0.6))}" height="${n(h)}" fill="${row.color}" class="bin"><title>${escapeXml(`${row.label}: ${(share * 100).toFixed(1)} % of calls between ${formatSeconds(edges[i])} and ${formatSeconds(edges[i + 1])}`)}</title></rect>`,
    );
  });
  for (const q of ['p50', 'p95', 'p99'] as const) {
    const px = n(x(m[q]));
    parts.push(
      `<line x1="${px}" y1="${top + 4}" x2="${px}" y2="${base}" class="marker q-${q}" stroke-dasharray="${QUANTILE_DASH[q]}"><title>${q} ${escapeXml(formatSeconds(m[q]))}</title></line>`,
      // p95 and p99 are often close: their tags sit either side of their lines.
      q === 'p50'
        ? `<text x="${px}" y="${top + 3}" class="qtag" text-anchor="middle">50</text>`
        : `<text x="${n(x(m[q]) + (q === 'p95' ? -2 : 2))}" y="${top + 9}" class="qtag" text-anchor="${q === 'p95' ? 'end' : 'start'}">${q.slice(1)}</text>`,
    );
  }
  if (m.mean !== undefined) {
    const px = x(m.mean);
    parts.push(
      `<path d="M${n(px)} ${base + 1} l4 6 h-8 z" class="mean"><title>mean ${escapeXml(formatSeconds(m.mean))}</title></path>`,
    );
  }
  parts.push(
    `<text x="${legendX}" y="${top + height / 2 + 4}" class="legend">` +
      `<tspan class="ql">p50</tspan> ${escapeXml(formatSeconds(m.p50))}  <tspan class="ql">p95</tspan> ${escapeXml(formatSeconds(m.p95))}  <tspan class="ql">p99</tspan> ${escapeXml(formatSeconds(m.p99))}` +
      `${m.mean === undefined ? '' : `  <tspan class="ql">mean</tspan> ${escapeXml(formatSeconds(m.mean))}`}</text>`,
  );
  return parts.join('');
}

/** One lane: a histogram per milestone on the common log axis, p50/p95/p99 marked, the mean below. */
export function laneChart(lane: ReportLane, edges: readonly number[]): string {
  const width = 980;
  const rowHeight = 44;
  const top = 8;
  const x0 = 110;
  const x1 = 640;
  const x = logScale(edges, x0, x1);
  const rows = MILESTONE_ROWS.filter((r) => lane.milestones[r.key] !== undefined);
  const axisY = top + rows.length * rowHeight + 6;
  const height = axisY + 22;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="lane-chart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(`${lane.lane}: milestone distributions`)}">`,
    axis(edges, x, axisY, top),
  ];
  rows.forEach((row, i) => {
    const rowTop = top + i * rowHeight;
    parts.push(
      `<text x="${x0 - 8}" y="${rowTop + rowHeight / 2 + 4}" class="rowlabel" text-anchor="end">${row.label}</text>`,
      milestoneRow(
        lane.milestones[row.key] as ReportMilestone,
        row,
        edges,
        x,
        rowTop,
        rowHeight - 6,
        x1 + 14,
      ),
    );
  });
  if (rows.length === 0) {
    parts.push(`<text x="${x0}" y="${top + 20}" class="legend">no successful calls in the window</text>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

/**
 * All lanes on one milestone: the mean (triangle) against the p50–p95 bar and the p99 tick. Where two
 * lanes' triangles line up and their bars do not, the average hides the tail.
 */
export function meansVersusTails(
  lanes: readonly ReportLane[],
  key: string,
  edges: readonly number[],
): string {
  const width = 980;
  const rowHeight = 26;
  const x0 = 150;
  const x1 = 640;
  const x = logScale(edges, x0, x1);
  const shown = lanes.filter((l) => l.milestones[key] !== undefined);
  const axisY = 10 + shown.length * rowHeight + 4;
  const height = axisY + 22;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="contrast-chart" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(`mean against p50, p95 and p99 of ${key} per lane`)}">`,
    axis(edges, x, axisY, 6),
  ];
  shown.forEach((lane, i) => {
    const m = lane.milestones[key] as ReportMilestone;
    const y = 10 + i * rowHeight + rowHeight / 2;
    parts.push(
      `<text x="${x0 - 8}" y="${y + 4}" class="rowlabel" text-anchor="end">${escapeXml(lane.lane)}</text>`,
      `<rect x="${n(x(m.p50))}" y="${y - 5}" width="${n(Math.max(1, x(m.p95) - x(m.p50)))}" height="10" class="tailbar"><title>${escapeXml(`${lane.lane}: p50 ${formatSeconds(m.p50)} to p95 ${formatSeconds(m.p95)}`)}</title></rect>`,
      `<line x1="${n(x(m.p99))}" y1="${y - 7}" x2="${n(x(m.p99))}" y2="${y + 7}" class="marker q-p99" stroke-dasharray="${QUANTILE_DASH.p99}"><title>p99 ${escapeXml(formatSeconds(m.p99))}</title></line>`,
    );
    if (m.mean !== undefined) {
      parts.push(
        `<path d="M${n(x(m.mean))} ${y - 8} l5 8 l-5 8 l-5 -8 z" class="mean"><title>mean ${escapeXml(formatSeconds(m.mean))}</title></path>`,
      );
    }
    parts.push(
      `<text x="${x1 + 14}" y="${y + 4}" class="legend"><tspan class="ql">mean</tspan> ${escapeXml(formatSeconds(m.mean))}  <tspan class="ql">p95</tspan> ${escapeXml(formatSeconds(m.p95))}  <tspan class="ql">p99</tspan> ${escapeXml(formatSeconds(m.p99))}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
