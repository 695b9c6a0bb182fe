import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { DEMO_LANES } from './demo-lanes.ts';
import type { DemoLaneView, DemoSnapshot } from './demo-snapshot.ts';
import { createDemoTally } from './demo-tally.ts';
import {
  contrastLine,
  renderPlainLines,
  renderScoreboard,
  seconds,
  stateCell,
  WIDE_COLUMNS,
} from './scoreboard.ts';
import { cut, terminalBoard } from './terminal-board.ts';

function withFirstText(record: LaneHealth, p50: number, p95: number): LaneHealth {
  return {
    ...record,
    quantiles: {
      ...record.quantiles,
      time_to_first_text: { p50, p95, p99: p95 * 1.2, samples: record.samples },
    },
  };
}

function snapshot(): DemoSnapshot {
  const tally = createDemoTally();
  const views: DemoLaneView[] = DEMO_LANES.map((demo, i) => {
    let record: LaneHealth | undefined = { ...exampleRecord(demo.lane, { seed: i + 1 }), lane: demo.lane };
    if (demo.lane === 'steady') record = withFirstText(record, 0.3, 0.37);
    if (demo.lane === 'spiky') record = withFirstText(record, 0.22, 1.1);
    if (demo.lane === 'thinker') record = { ...record, state: 'unknown', samples: 23, min_samples: 50 };
    if (demo.lane === 'tool-caller') record = undefined;
    return {
      demo,
      url: `http://127.0.0.1:${9000 + i}`,
      record,
      means: { time_to_first_text: demo.lane === 'steady' ? 0.31 : demo.lane === 'spiky' ? 0.3 : 1.5 },
      firstTextCostS: 0.5,
      tally: tally.laneOf(demo.lane),
    };
  });
  return {
    elapsedS: 75.4,
    timeScale: 0.5,
    processorUrl: 'http://127.0.0.1:4320',
    windowS: 60,
    intervalS: 1,
    minSamples: 50,
    healthPath: '/tmp/lane-health.json',
    lanes: views,
    jobs: tally.jobs,
    calibration: { lanes: [] },
  };
}

describe('demo scoreboard', () => {
  it('shows warm-up progress until a lane has min_samples, then its state', () => {
    const s = snapshot();
    const thinker = s.lanes.find((l) => l.demo.lane === 'thinker') as DemoLaneView;
    assert.equal(stateCell(thinker, 50, true), '████░░░░░░ 23/50');
    assert.equal(stateCell(thinker, 50, false), '####...... 23/50');
    const none = s.lanes.find((l) => l.demo.lane === 'tool-caller') as DemoLaneView;
    assert.equal(stateCell(none, 50, false), '.......... 0/50');
    const steady = s.lanes.find((l) => l.demo.lane === 'steady') as DemoLaneView;
    assert.equal(stateCell(steady, 50, false), steady.record?.state);
  });

  it('names the pair whose means agree and whose tails do not', () => {
    assert.equal(
      contrastLine(snapshot()),
      'mean first_text steady 0.31 s, spiky 0.30 s — p95 0.37 s vs 1.10 s: the same average, 3.0× the tail',
    );
  });

  it('fits the wide layout on a wide terminal and the stacked one on 80 columns, every milestone shown', () => {
    const s = snapshot();
    const wide = renderScoreboard(s, WIDE_COLUMNS);
    assert.match(wide[0] as string, /^lanewatch demo · 1:15 · 6 simulated lanes, time scale 0\.5/);
    for (const line of wide.slice(2)) assert.ok([...line].length < WIDE_COLUMNS, line);
    const header = wide.find((l) => l.startsWith('lane ') && l.includes('headers')) as string;
    for (const m of ['headers', 'first_chunk', 'first_output', 'first_text', 'end'])
      assert.ok(header.includes(m), m);
    assert.ok(wide.some((l) => /^spiky +\S+ +\d+ +[\d.]+ /.test(l)));
    assert.ok(wide.some((l) => l.includes('cost text') && l.includes('passed over')));
    const narrow = renderScoreboard(s, 80);
    assert.ok(narrow.some((l) => /^ {2}headers [\d.]+\/[\d.]+\/[\d.]+ first_chunk /.test(l)));
    assert.ok(narrow.some((l) => l.startsWith('  first_text 0.30/0.37/0.44 end ')));
    assert.ok(narrow.some((l) => l.startsWith('  cutoffs ')));
    for (const line of narrow.slice(2, -2)) assert.ok([...line].length <= 80, line);
  });

  it('prints plain lines for a pipe: one per lane, no escape codes', () => {
    const lines = renderPlainLines(snapshot());
    assert.equal(lines.filter((l) => l.startsWith('[1:15] ')).length, lines.length);
    assert.ok(lines.some((l) => l.startsWith('[1:15] steady ')));
    assert.ok(lines.some((l) => l.includes('jobs: none yet')));
    for (const line of lines) assert.ok(!line.includes('\x1b'), line);
  });

  it('formats seconds in four characters', () => {
    assert.deepEqual([0.2834, 3.512, 12.44, 131.2, null].map(seconds), ['0.28', '3.51', '12.4', '131', '–']);
  });

  it('redraws in place: back over the last block, clear below, cut to the terminal', () => {
    const out: string[] = [];
    const board = terminalBoard(
      (t) => out.push(t),
      () => ({ columns: 20, rows: 3 }),
    );
    board.draw(['a', 'b', 'c', 'd']);
    board.draw(['x'.repeat(40)]);
    assert.equal(out[0], '\x1b[Ja\nb\n');
    assert.equal(out[1], `\x1b[2F\x1b[J${'x'.repeat(18)}…\n`);
    assert.equal(cut('short', 10), 'short');
  });
});
