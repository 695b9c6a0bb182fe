import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MILESTONE_EVENT, MILESTONE_METRIC, MILESTONE_SPAN_MS, MILESTONES, sizeClassOf } from './names.ts';

describe('names', () => {
  it('gives every milestone a metric, a span event and a span attribute, all distinct', () => {
    for (const table of [MILESTONE_METRIC, MILESTONE_EVENT, MILESTONE_SPAN_MS]) {
      const values = MILESTONES.map((m) => table[m]);
      assert.equal(new Set(values).size, MILESTONES.length);
    }
    for (const m of MILESTONES) {
      assert.ok(MILESTONE_EVENT[m].endsWith(m), `${MILESTONE_EVENT[m]} names ${m}`);
      assert.ok(MILESTONE_SPAN_MS[m].endsWith(`${m}_ms`));
    }
  });

  it('classes request sizes at the documented bounds', () => {
    assert.equal(sizeClassOf(0), 'xs');
    assert.equal(sizeClassOf(1023), 'xs');
    assert.equal(sizeClassOf(1024), 's');
    assert.equal(sizeClassOf(8 * 1024), 'm');
    assert.equal(sizeClassOf(64 * 1024 - 1), 'm');
    assert.equal(sizeClassOf(64 * 1024), 'l');
    assert.equal(sizeClassOf(512 * 1024), 'xl');
  });
});
