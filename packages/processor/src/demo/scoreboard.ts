import { MILESTONE_QUANTILE_KEY, MILESTONES } from '@lanewatch/instrumentation/names';
import type { DemoLaneView, DemoSnapshot } from './demo-snapshot.ts';

// The demo's scoreboard as lines of text: pure, so the terminal adapter only decides where they go.

const SHORT: Readonly<Record<string, string>> = {
  time_to_headers: 'headers',
  time_to_first_chunk: 'first_chunk',
  time_to_first_output: 'first_output',
  time_to_first_text: 'first_text',
  duration: 'end',
};
const KEYS = MILESTONES.map((m) => MILESTONE_QUANTILE_KEY[m]);

/** Seconds in at most 4 characters: 0.28, 3.51, 12.4, 131. */
export function seconds(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (x < 9.995) return x.toFixed(2);
  if (x < 99.95) return x.toFixed(1);
  return x.toFixed(0);
}

function percent(x: number | undefined): string {
  if (x === undefined) return '–';
  return x === 0 ? '0' : x < 0.1 ? (x * 100).toFixed(1) : (x * 100).toFixed(0);
}

function clock(s: number): string {
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
}

/** `[█████░░░░░] 23/50` while a lane warms up to `min_samples`; its state once it is known. */
export function stateCell(view: DemoLaneView, minSamples: number, unicode: boolean): string {
  const record = view.record;
  const samples = record?.samples ?? 0;
  const min = record?.min_samples ?? minSamples;
  if (record && record.state !== 'unknown') return record.state;
  const filled = Math.min(10, Math.floor((samples / min) * 10));
  const [on, off] = unicode ? ['█', '░'] : ['#', '.'];
  return `${on.repeat(filled)}${off.repeat(10 - filled)} ${samples}/${min}`;
}

function quantileTriple(view: DemoLaneView, key: string, width: number): string {
  const q = view.record?.quantiles[key];
  return [q?.p50, q?.p95, q?.p99].map((x) => seconds(x).padStart(width)).join(' ');
}

/** The count, and the commonest reason once the lane is past warm-up (`unknown` says nothing then). */
function passedOver(view: DemoLaneView): string {
  const entries = Object.entries(view.tally.rejected).sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return '0';
  const telling = entries.filter(([reason]) => reason !== 'unknown' && reason !== 'stale');
  const top = (telling[0] ?? entries[0]) as [string, number];
  return `${total} (${top[0]} ${top[1]})`;
}

function hedge(view: DemoLaneView): string {
  const h = view.record?.hedge;
  if (!h || h.after_s === null) return '–';
  return `${seconds(h.after_s)} ${h.allowed ? 'on' : 'off'}`;
}

function cutoffs(view: DemoLaneView): string {
  const c = view.record?.cutoffs;
  return `${seconds(c?.first_output_s)} / ${seconds(c?.total_s)}`;
}

/**
 * The pair of lanes that makes the point: of the lanes judged healthy or degraded, the two whose mean
 * time to first text is closest while their p95s are at least 1.5× apart.
 */
export function contrastLine(snapshot: DemoSnapshot): string | undefined {
  const key = 'time_to_first_text';
  const known = snapshot.lanes.filter(
    (l) =>
      (l.record?.state === 'healthy' || l.record?.state === 'degraded') &&
      l.record.quantiles[key] !== undefined &&
      l.means[key] !== undefined,
  );
  let best: { gap: number; text: string } | undefined;
  for (const a of known) {
    for (const b of known) {
      const [ma, mb] = [a.means[key] as number, b.means[key] as number];
      const [pa, pb] = [a.record?.quantiles[key]?.p95 ?? 0, b.record?.quantiles[key]?.p95 ?? 0];
      const gap = Math.abs(ma - mb) / Math.max(ma, mb);
      if (a === b || pa <= 0 || pb < 1.5 * pa || gap > 0.2 || (best && gap >= best.gap)) continue;
      best = {
        gap,
        text:
          `mean first_text ${a.demo.lane} ${seconds(ma)} s, ${b.demo.lane} ${seconds(mb)} s — p95 ` +
          `${seconds(pa)} s vs ${seconds(pb)} s: the same average, ${(pb / pa).toFixed(1)}× the tail`,
      };
    }
  }
  return best?.text;
}

function jobsLine(snapshot: DemoSnapshot): string {
  const j = snapshot.jobs;
  if (j.total === 0) return 'jobs: none yet — they start once a lane has min_samples calls and a state';
  const causes = Object.entries(j.refusedByCause)
    .sort((a, b) => b[1] - a[1])
    .map(([cause, n]) => `${cause} ${n}`)
    .join(', ');
  return (
    `jobs ${j.total}: admitted ${j.admitted} (deadline met ${j.met}, missed ${j.missed}) · ` +
    `refused at once ${j.refused}${causes ? ` (${causes})` : ''}`
  );
}

function headerLines(snapshot: DemoSnapshot): string[] {
  const faster =
    snapshot.timeScale === 1
      ? 'real time'
      : `${(1 / snapshot.timeScale).toPrecision(2)}× faster than their profiles`;
  return [
    `lanewatch demo · ${clock(snapshot.elapsedS)} · ${snapshot.lanes.length} simulated lanes, time scale ${snapshot.timeScale} (${faster}) · Ctrl-C stops`,
    `processor ${snapshot.processorUrl} (GET /v1/lanes) · window ${snapshot.windowS} s, evaluated every ${snapshot.intervalS} s · seconds from dispatch · hints in ${snapshot.healthPath}`,
  ];
}

/** The board for a terminal at least `WIDE_COLUMNS` wide: two tables, one row per lane. */
export const WIDE_COLUMNS = 122;

export function renderScoreboard(snapshot: DemoSnapshot, columns: number, unicode = true): string[] {
  const lines = [...headerLines(snapshot), ''];
  const name = Math.max(4, ...snapshot.lanes.map((l) => l.demo.lane.length));
  if (columns >= WIDE_COLUMNS) {
    const q = 4;
    const group = 3 * q + 2;
    lines.push(
      `${'lane'.padEnd(name)}  ${'state'.padEnd(16)} ${'samples'.padStart(7)}  ${KEYS.map((k) => (SHORT[k] as string).padEnd(group)).join('  ')}`,
      `${''.padEnd(name)}  ${''.padEnd(16)} ${''.padStart(7)}  ${KEYS.map(() => ['p50', 'p95', 'p99'].map((h) => h.padStart(q)).join(' ')).join('  ')}`,
    );
    for (const view of snapshot.lanes) {
      lines.push(
        `${view.demo.lane.padEnd(name)}  ${stateCell(view, snapshot.minSamples, unicode).padEnd(16)} ${String(view.record?.samples ?? 0).padStart(7)}  ${KEYS.map((k) => quantileTriple(view, k, q)).join('  ')}`,
      );
    }
    lines.push(
      '',
      `${'lane'.padEnd(name)}  ${'format'.padEnd(16)} ${'cost text'.padStart(9)} ${'cost end'.padStart(8)}  ${'cutoffs out / total'.padEnd(19)} ${'hedge'.padEnd(9)} ${'429 %'.padStart(5)} ${'err %'.padStart(5)}  ${'admitted'.padStart(8)}  passed over`,
    );
    for (const view of snapshot.lanes) {
      const rates = view.record?.rates;
      lines.push(
        `${view.demo.lane.padEnd(name)}  ${view.demo.format.padEnd(16)} ${seconds(view.firstTextCostS).padStart(9)} ${seconds(view.record?.expected_cost_s).padStart(8)}  ${cutoffs(view).padEnd(19)} ${hedge(view).padEnd(9)} ${percent(rates?.rate_limited).padStart(5)} ${percent(rates?.error).padStart(5)}  ${String(view.tally.admitted).padStart(8)}  ${passedOver(view)}`,
      );
    }
  } else {
    // Stacked, four lines a lane, each within 80 columns.
    const triple = (view: DemoLaneView, k: string) =>
      `${SHORT[k]} ${quantileTriple(view, k, 0).replaceAll(' ', '/')}`;
    for (const view of snapshot.lanes) {
      lines.push(
        `${view.demo.lane.padEnd(name)}  ${stateCell(view, snapshot.minSamples, unicode)} · ${view.record?.samples ?? 0} samples · ${view.demo.format}`,
        `  ${KEYS.slice(0, 3)
          .map((k) => triple(view, k))
          .join(' ')}`,
        `  ${KEYS.slice(3)
          .map((k) => triple(view, k))
          .join(
            ' ',
          )} · cost text ${seconds(view.firstTextCostS)}, end ${seconds(view.record?.expected_cost_s)}`,
        `  cutoffs ${cutoffs(view)} · 429 ${percent(view.record?.rates.rate_limited)} % · admitted ${view.tally.admitted} · passed over ${passedOver(view)}`,
      );
    }
  }
  lines.push('', jobsLine(snapshot));
  const contrast = contrastLine(snapshot);
  if (contrast) lines.push(contrast);
  return lines.map((line) => line.trimEnd());
}

/** For a pipe: one line per lane, prefixed with the elapsed time, and the jobs line. */
export function renderPlainLines(snapshot: DemoSnapshot): string[] {
  const at = `[${clock(snapshot.elapsedS)}]`;
  const lines = snapshot.lanes.map((view) => {
    const quantiles = KEYS.map((k) => `${SHORT[k]} ${quantileTriple(view, k, 0).replaceAll(' ', '/')}`).join(
      ' ',
    );
    return (
      `${at} ${view.demo.lane} ${stateCell(view, snapshot.minSamples, false)} samples ${view.record?.samples ?? 0}` +
      ` | p50/p95/p99 s ${quantiles} | cost text ${seconds(view.firstTextCostS)} end ${seconds(view.record?.expected_cost_s)}` +
      ` | cutoffs ${cutoffs(view)} | admitted ${view.tally.admitted} passed over ${passedOver(view)}`
    );
  });
  lines.push(`${at} ${jobsLine(snapshot)}`);
  const contrast = contrastLine(snapshot);
  if (contrast) lines.push(`${at} ${contrast}`);
  return lines;
}
