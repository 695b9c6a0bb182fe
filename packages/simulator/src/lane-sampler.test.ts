import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { laneKnobs } from './lane-knobs.ts';
import { laneProfile, PROFILE_NAMES } from './lane-profiles.ts';
import { sampleLane } from './lane-sampler.ts';
import { scheduleOf, validateScript } from './script.ts';
import { WIRE_FORMATS } from './wire-format.ts';
import { defaultWriters } from './writers.ts';

const CONTEXT = { model: 'm', createdAtMs: 0, id: 'x', includeUsage: true } as const;

type Stats = { mean: number; p50: number; p95: number };
const statsCache = new Map<string, Record<'headers' | 'first_output' | 'first_text' | 'end', Stats>>();

/**
 * Milestone statistics of a profile's streams over 4000 requests, read off the schedule: every
 * output piece of Chat Completions is written, so its milestones are the pieces' due times.
 */
function milestoneStats(name: string, milestone: 'headers' | 'first_output' | 'first_text' | 'end'): Stats {
  let stats = statsCache.get(name);
  if (!stats) {
    const { knobs } = laneProfile(name);
    const columns = {
      headers: [] as number[],
      first_output: [] as number[],
      first_text: [] as number[],
      end: [] as number[],
    };
    for (let index = 0; index < 4000; index++) {
      const { script } = sampleLane(knobs, name, index);
      if (script.kind !== 'stream') continue;
      const { headersAtMs, piecesAtMs } = scheduleOf(script);
      const due = (predicate: (kind: string) => boolean) => {
        const at = script.pieces.findIndex((piece) => predicate(piece.kind));
        return at === -1 ? undefined : piecesAtMs[at];
      };
      columns.headers.push(headersAtMs);
      const output = due((kind) => kind === 'text' || kind === 'reasoning' || kind === 'tool-call');
      const text = due((kind) => kind === 'text');
      if (output !== undefined) columns.first_output.push(output);
      if (text !== undefined) columns.first_text.push(text);
      columns.end.push(piecesAtMs.at(-1) ?? headersAtMs);
    }
    const summarize = (values: number[]): Stats => {
      values.sort((a, b) => a - b);
      const at = (q: number) => values[Math.floor(q * (values.length - 1))] ?? Number.NaN;
      return {
        mean: values.reduce((sum, value) => sum + value, 0) / values.length,
        p50: at(0.5),
        p95: at(0.95),
      };
    };
    stats = {
      headers: summarize(columns.headers),
      first_output: summarize(columns.first_output),
      first_text: summarize(columns.first_text),
      end: summarize(columns.end),
    };
    statsCache.set(name, stats);
  }
  return stats[milestone];
}

describe('sampleLane', () => {
  test('same seed → same timings, to the microsecond; another seed → others', () => {
    const { knobs } = laneProfile('spiky');
    for (let index = 0; index < 50; index++) {
      assert.deepEqual(sampleLane(knobs, 7, index), sampleLane(knobs, 7, index));
    }
    const schedule = (seed: number) =>
      Array.from({ length: 20 }, (_, index) => {
        const { script } = sampleLane(knobs, seed, index);
        return script.kind === 'stream' ? scheduleOf(script) : script;
      });
    assert.notDeepEqual(schedule(7), schedule(8));
  });

  test('request n draws the same whatever was drawn before it', () => {
    const { knobs } = laneProfile('flaky');
    const alone = sampleLane(knobs, 'lane', 500);
    for (let index = 0; index < 500; index++) sampleLane(knobs, 'lane', index);
    assert.deepEqual(sampleLane(knobs, 'lane', 500), alone);
  });

  test('turning one knob does not reshuffle the other draws', () => {
    const base = laneKnobs();
    const stalled = laneKnobs({ stallProbability: 1, stallMedianMs: 1000, stallSigma: 0 });
    for (let index = 0; index < 20; index++) {
      const a = sampleLane(base, 1, index).script;
      const b = sampleLane(stalled, 1, index).script;
      assert.ok(a.kind === 'stream' && b.kind === 'stream');
      assert.ok(Math.abs(b.headersDelayMs - a.headersDelayMs - 1000) < 1e-9, 'only the stall was added');
      assert.deepEqual(b.pieces, a.pieces);
    }
  });

  test('steady and spiky: means within 5%, p95 of first text about 3× apart', () => {
    const steady = milestoneStats('steady', 'first_text');
    const spiky = milestoneStats('spiky', 'first_text');
    assert.ok(Math.abs(spiky.mean / steady.mean - 1) < 0.05, `means ${steady.mean} vs ${spiky.mean}`);
    const ratio = spiky.p95 / steady.p95;
    assert.ok(ratio > 2.5 && ratio < 3.5, `p95 ratio ${ratio}`);
    assert.ok(steady.p95 > 650 && steady.p95 < 850);
  });

  test('thinker: first output (reasoning) early, first text seconds later', () => {
    const output = milestoneStats('thinker', 'first_output');
    const text = milestoneStats('thinker', 'first_text');
    assert.ok(output.p50 < 500, `first output p50 ${output.p50}`);
    assert.ok(text.p50 - output.p50 > 2000, `lead ${text.p50 - output.p50}`);
  });

  test('slow-generation: first text fast, the end of slow responses far later', () => {
    const text = milestoneStats('slow-generation', 'first_text');
    const end = milestoneStats('slow-generation', 'end');
    assert.ok(text.p95 < 500);
    assert.ok(end.p95 > 4 * end.p50, `end p50 ${end.p50} p95 ${end.p95}`);
  });

  test('429 bursts: consecutive runs of the burst length, with retry-after', () => {
    const { knobs } = laneProfile('rate-limited');
    const limited = Array.from({ length: 2000 }, (_, index) => sampleLane(knobs, 3, index));
    const rate = limited.filter((sample) => sample.traits.rateLimited).length / limited.length;
    assert.ok(rate > 0.08 && rate < 0.3, `429 rate ${rate}`);
    let run = 0;
    const runs: number[] = [];
    for (const sample of limited) {
      if (sample.traits.rateLimited) run++;
      else if (run > 0) {
        runs.push(run);
        run = 0;
      }
    }
    assert.ok(
      runs.every((length) => length >= knobs.rateLimitBurstLength),
      `runs ${runs.slice(0, 10)}`,
    );
    const first = limited.find((sample) => sample.traits.rateLimited)?.script;
    assert.deepEqual(first && first.kind === 'error' && [first.status, first.retryAfterSeconds], [429, 2]);
  });

  test('a cold request waits coldStartMs more before its headers, and only that', () => {
    const { knobs } = laneProfile('cold-start');
    const warm = sampleLane(knobs, 1, 0, { cold: false }).script;
    const cold = sampleLane(knobs, 1, 0, { cold: true }).script;
    assert.ok(warm.kind === 'stream' && cold.kind === 'stream');
    assert.ok(Math.abs(cold.headersDelayMs - warm.headersDelayMs - 4000) < 1e-9);
    assert.deepEqual(cold.pieces, warm.pieces);
  });

  test('faults: an in-stream error, an early end and a reset, each without the terminal events', () => {
    const knobs = laneKnobs({ streamErrorProbability: 0.3, truncateProbability: 0.3, resetProbability: 0.3 });
    const seen = new Set<string>();
    for (let index = 0; index < 200; index++) {
      const { script, traits } = sampleLane(knobs, 5, index);
      assert.ok(script.kind === 'stream');
      const kinds = script.pieces.map((piece) => piece.kind);
      if (!traits.fault) {
        assert.deepEqual(kinds.slice(-3), ['finish', 'usage', 'done']);
        continue;
      }
      seen.add(traits.fault);
      assert.ok(!kinds.includes('done') && !kinds.includes('finish'));
      const last = kinds.at(-1);
      if (traits.fault === 'stream-error') assert.equal(last, 'error');
      if (traits.fault === 'reset') assert.equal(last, 'reset');
      if (traits.fault === 'truncated') assert.equal(last, 'text');
    }
    assert.deepEqual([...seen].sort(), ['reset', 'stream-error', 'truncated']);
  });

  test('heartbeats fill the wait before the first output', () => {
    const knobs = laneKnobs({ heartbeatEveryMs: 50, firstOutputMedianMs: 400, firstOutputSigma: 0 });
    const { script } = sampleLane(knobs, 1, 0);
    assert.ok(script.kind === 'stream');
    assert.equal(script.pieces.filter((piece) => piece.kind === 'heartbeat').length, 7);
  });

  test('every profile’s scripts are valid and can be written in every format', () => {
    const writers = defaultWriters();
    for (const name of PROFILE_NAMES) {
      const { knobs } = laneProfile(name);
      for (let index = 0; index < 40; index++) {
        const { script } = sampleLane(knobs, name, index);
        validateScript(script);
        if (script.kind !== 'stream') continue;
        for (const format of WIRE_FORMATS) {
          const rendered = writers[format].render(script, CONTEXT);
          assert.equal(rendered.length, script.pieces.length);
        }
      }
    }
  });
});
