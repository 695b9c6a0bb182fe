import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import { viewOf } from '../evaluation/lane-health.ts';
import { createAdmissionController, decisionLogFile } from './admission-controller.ts';
import { calibrationOf, outcomesFromLog } from './calibration.ts';

const NOW = Date.parse('2026-11-30T08:00:00Z');

function reader(costs: Record<string, number>) {
  return {
    async lanes() {
      return Object.entries(costs).map(([lane, cost]) =>
        viewOf({ ...exampleRecord(lane, { now: NOW }), expected_cost_s: cost }, NOW),
      );
    },
  };
}

describe('admission controller', () => {
  it('logs one decision line per job with the expected cost, the budget and every lane considered', async () => {
    const lines: string[] = [];
    const controller = createAdmissionController({
      reader: reader({ a: 2, b: 20 }),
      log: (l) => lines.push(l),
      now: () => NOW,
    });
    await controller.admit({ id: 'j1', deadline_s: 10, secret_class: 'internal' });
    await controller.admit({ id: 'j2', deadline_s: 1 });
    assert.equal(lines.length, 2);
    const first = JSON.parse(lines[0] ?? '{}');
    assert.equal(first.type, 'decision');
    assert.equal(first.job_id, 'j1');
    assert.equal(first.lane, 'a');
    assert.equal(first.expected_cost_s, 2);
    assert.equal(first.budget_s, 9);
    assert.deepEqual(
      first.considered.map((c: { lane: string; rejected?: string }) => [c.lane, c.rejected ?? null]),
      [
        ['a', null],
        ['b', 'over_budget'],
      ],
    );
    assert.equal(JSON.parse(lines[1] ?? '{}').admitted, false);
  });

  it('never logs job fields beyond id, deadline and classes', async () => {
    const lines: string[] = [];
    const controller = createAdmissionController({ reader: reader({ a: 2 }), log: (l) => lines.push(l) });
    const job = {
      id: 'j',
      deadline_s: 10,
      prompt: 'PATIENT RECORD 1234',
      customer: { email: 'x@example.com' },
    };
    const decision = await controller.admit(job);
    controller.recordOutcome(decision.decision_id, 1.5, 'ok');
    const log = lines.join('\n');
    assert.ok(!log.includes('PATIENT') && !log.includes('example.com'), log);
  });

  it('records outcomes and reports expected versus actual per lane; a lane slower than its hints is suspect', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'decisions-'));
    try {
      const path = join(dir, 'decisions.jsonl');
      const controller = createAdmissionController({
        reader: reader({ honest: 2, stale: 1 }),
        log: decisionLogFile(path),
      });
      for (let i = 0; i < 40; i++) {
        // "stale" is the cheapest by its hint, so it is chosen every time — and runs slower than hinted.
        const d = await controller.admit({ id: `j${i}`, deadline_s: 10 });
        assert.equal(d.lane, 'stale');
        controller.recordOutcome(d.decision_id, 1 + (i % 10) * 0.2, 'ok'); // actual 1.0–2.8 s against 1 s
      }
      const honest = createAdmissionController({ reader: reader({ honest: 2 }), log: decisionLogFile(path) });
      for (let i = 0; i < 40; i++) {
        const d = await honest.admit({ id: `h${i}`, deadline_s: 10 });
        honest.recordOutcome(d.decision_id, i === 0 ? 2.5 : 1 + (i % 10) * 0.05, 'ok');
      }
      assert.equal(controller.recordOutcome('unknown-decision', 1, 'ok'), undefined);

      const stale = controller.calibration().lanes[0];
      assert.equal(stale?.lane, 'stale');
      assert.equal(stale?.count, 40);
      assert.equal(stale?.mean_expected_s, 1);
      assert.equal(stale?.mean_gap_s, 0.9);
      assert.equal(stale?.suspect, true);
      assert.ok((stale?.p95_gap_s ?? 0) > 1.7);

      // The same report from the log file, across both controllers.
      const fromLog = calibrationOf(outcomesFromLog((await readFile(path, 'utf8')).split('\n')));
      assert.deepEqual(
        fromLog.lanes.map((l) => [l.lane, l.count, l.suspect]),
        [
          ['honest', 40, false],
          ['stale', 40, true],
        ],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
