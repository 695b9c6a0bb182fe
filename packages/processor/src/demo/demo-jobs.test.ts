import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BATCH_DEADLINES_S, demoJob, INTERACTIVE_DEADLINES_S } from './demo-jobs.ts';

describe('demo jobs', () => {
  it('are the same for a seed, and mix interactive, batch and restricted jobs at the time scale', () => {
    assert.deepEqual(demoJob(7, 's', 0.5), demoJob(7, 's', 0.5));
    const jobs = Array.from({ length: 1000 }, (_, i) => demoJob(i, 'lanewatch', 0.5));
    const interactive = jobs.filter((j) => j.milestone === 'first_text');
    const restricted = jobs.filter((j) => j.secret_class === 'restricted');
    assert.ok(interactive.length > 420 && interactive.length < 580, String(interactive.length));
    assert.ok(restricted.length > 230 && restricted.length < 370, String(restricted.length));
    for (const job of jobs) {
      const deadlines: readonly number[] =
        job.milestone === 'first_text' ? INTERACTIVE_DEADLINES_S : BATCH_DEADLINES_S;
      assert.ok(deadlines.map((d) => d * 0.5).includes(job.deadline_s), `${job.id} ${job.deadline_s}`);
      assert.match(job.id, /^job-\d+$/);
    }
  });
});
