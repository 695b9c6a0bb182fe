import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import { type LaneHealth, type LaneHealthView, type LaneState, viewOf } from '../evaluation/lane-health.ts';
import { AdmissionJobError, admit, expectedCostFor } from './admit.ts';

const NOW = Date.parse('2026-11-30T08:00:00Z');

function lane(
  name: string,
  cost: number,
  overrides: {
    state?: LaneState;
    can_hold_secret?: boolean;
    offline_capable?: boolean;
    rank?: number;
    at?: number;
  } = {},
): LaneHealthView {
  const record = exampleRecord(name, { now: overrides.at ?? NOW });
  const changed: LaneHealth = {
    ...record,
    state: overrides.state ?? 'healthy',
    expected_cost_s: cost,
    scorecard: {
      ...record.scorecard,
      can_hold_secret: overrides.can_hold_secret ?? true,
      offline_capable: overrides.offline_capable ?? false,
      rank: overrides.rank ?? 0,
    },
  };
  return viewOf(changed, NOW);
}

const job = { id: 'job-1', deadline_s: 10 };

describe('admit', () => {
  it('picks the cheapest eligible lane that fits deadline − safety margin', () => {
    const d = admit(job, [lane('slow', 6), lane('fast', 2), lane('mid', 4)], {
      decisionId: 'd1',
      now: () => NOW,
    });
    assert.equal(d.admitted, true);
    assert.equal(d.lane, 'fast');
    assert.equal(d.expected_cost_s, 2);
    assert.equal(d.budget_s, 9);
    assert.equal(d.reason, 'fast: expected 2 s within budget 9 s');
    assert.equal(d.decision_id, 'd1');
    assert.equal(d.at, '2026-11-30T08:00:00.000Z');
  });

  it('breaks ties on rank, then name', () => {
    assert.equal(admit(job, [lane('b', 2, { rank: 1 }), lane('a', 2, { rank: 2 })]).lane, 'b');
    assert.equal(admit(job, [lane('b', 2), lane('a', 2)]).lane, 'a');
  });

  it('refuses at once, with the reason, when nothing fits', () => {
    const d = admit({ id: 'j', deadline_s: 3 }, [lane('x', 2.5), lane('y', 5)], { safetyMarginS: 1 });
    assert.equal(d.admitted, false);
    assert.equal(d.lane, null);
    assert.equal(d.reason, 'refused: cheapest eligible lane x expects 2.5 s, over budget 2 s');
    assert.deepEqual(
      d.considered.map((c) => [c.lane, c.rejected]),
      [
        ['x', 'over_budget'],
        ['y', 'over_budget'],
      ],
    );
    assert.equal(admit(job, []).reason, 'refused: no lanes are known');
  });

  it('sends restricted jobs only to lanes that can hold a secret, offline jobs only to offline lanes', () => {
    const lanes = [lane('cheap', 1, { can_hold_secret: false }), lane('local', 3, { offline_capable: true })];
    const restricted = admit({ ...job, secret_class: 'restricted' }, lanes);
    assert.equal(restricted.lane, 'local');
    assert.equal(restricted.considered.find((c) => c.lane === 'cheap')?.rejected, 'cannot_hold_secret');
    const offline = admit({ ...job, requires_offline: true }, [
      lane('cheap', 1),
      lane('local', 3, { offline_capable: true }),
    ]);
    assert.equal(offline.lane, 'local');
    assert.equal(offline.considered.find((c) => c.lane === 'cheap')?.rejected, 'not_offline_capable');
    const none = admit({ ...job, secret_class: 'restricted' }, [
      lane('cheap', 1, { can_hold_secret: false }),
    ]);
    assert.equal(none.admitted, false);
    assert.equal(none.reason, 'refused: no eligible lane of 1');
  });

  it('never admits to a stale, unknown, down or saturated lane, however cheap', () => {
    const lanes = [
      lane('stale', 0.1, { at: NOW - 120_000 }),
      lane('unknown', 0.1, { state: 'unknown' }),
      lane('down', 0.1, { state: 'down' }),
      lane('saturated', 0.1, { state: 'saturated' }),
      lane('degraded', 5, { state: 'degraded' }),
    ];
    const d = admit(job, lanes);
    assert.equal(d.lane, 'degraded');
    assert.deepEqual(
      d.considered.map((c) => c.rejected),
      ['stale', 'unknown', 'down', 'saturated', undefined],
    );
  });

  it('costs a job on the milestone its deadline is about', () => {
    const record = lane('fast', 9);
    const firstOutput = expectedCostFor(record, 'first_output');
    const q = record.quantiles.time_to_first_output;
    assert.ok(q && firstOutput !== null);
    assert.ok(Math.abs(firstOutput - (q.p95 * (1 + record.rates.retry) + record.scorecard.handoff_s)) < 1e-9);
    const d = admit({ id: 'j', deadline_s: 3, milestone: 'first_output' }, [record]);
    assert.equal(d.milestone, 'time_to_first_output');
    assert.equal(d.admitted, true);
  });

  it('rejects a malformed job with a message that says what to pass', () => {
    assert.throws(() => admit({ id: '', deadline_s: 1 }, []), AdmissionJobError);
    assert.throws(
      () => admit({ id: 'x', deadline_s: Number.NaN }, []),
      /deadline_s must be a number of seconds above 0/,
    );
    assert.throws(() => admit({ id: 'x', deadline_s: -1 }, []), /deadline_s/);
  });

  it('copies nothing from the job but its id, deadline and classes', () => {
    const secretJob = {
      id: 'job-7',
      deadline_s: 10,
      secret_class: 'restricted',
      prompt: 'TOP SECRET PROMPT',
      api_key: 'sk-live-123',
    };
    const text = JSON.stringify(admit(secretJob, [lane('a', 1)]));
    assert.ok(!text.includes('TOP SECRET') && !text.includes('sk-live'));
    const sneaky = admit(
      { id: 'ok id with "quotes" and text', deadline_s: 5, secret_class: 'x'.repeat(100) },
      [],
    );
    assert.equal(sneaky.job_id, '[redacted]');
    assert.equal(sneaky.secret_class, '[redacted]');
  });
});
