import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateLane } from './evaluate-lane.ts';
import { DEFAULT_EVALUATION_CONFIG } from './evaluation-config.ts';
import { exampleRecord } from './example-record.test-helper.ts';
import { viewOf } from './lane-health.ts';
import { laneHealthSchema, validateLaneHealth } from './lane-health-schema.test-helper.ts';
import { observationOf } from './simulated-calls.ts';

function assertValid(record: unknown): void {
  assert.ok(validateLaneHealth(record), JSON.stringify(validateLaneHealth.errors, null, 2));
}

describe('lane-health JSON Schema', () => {
  it('accepts real records: healthy, saturated, unknown, and as readers see them', () => {
    const now = Date.parse('2026-11-30T08:00:00Z');
    assertValid(exampleRecord('fast', { now }));
    assertValid(exampleRecord('busy', { now, rateLimited: 0.3 }));
    const empty = evaluateLane({
      observation: observationOf('new', [], 300, now),
      previous: undefined,
      scorecard: {
        can_hold_secret: false,
        offline_capable: false,
        handoff_s: 0,
        rank: 1000,
        source: 'default',
      },
      config: DEFAULT_EVALUATION_CONFIG,
      now,
    }).record;
    assert.equal(empty.state, 'unknown');
    assertValid(empty);
    assertValid(viewOf(exampleRecord('fast', { now }), now + 120_000));
  });

  it('describes every field it declares', () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const props = (node as { properties?: Record<string, unknown> }).properties;
      for (const [name, child] of Object.entries(props ?? {})) {
        if (typeof (child as { description?: unknown }).description !== 'string')
          missing.push(`${path}.${name}`);
        walk(child, `${path}.${name}`);
      }
      for (const def of Object.values((node as { $defs?: Record<string, unknown> }).$defs ?? {}))
        walk(def, path);
    };
    walk(laneHealthSchema, '');
    assert.deepEqual(missing, []);
  });

  it('rejects a record missing what readers rely on', () => {
    const { expires_at: _, ...partial } = exampleRecord('fast');
    assert.equal(validateLaneHealth(partial), false);
    assert.equal(validateLaneHealth({ ...exampleRecord('fast'), state: 'fine' }), false);
  });
});
