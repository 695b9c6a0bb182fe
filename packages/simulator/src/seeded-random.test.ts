import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seededRandom, seedOf } from './seeded-random.ts';

describe('seededRandom', () => {
  test('the same keys give the same numbers; any other key gives others', () => {
    const draw = (...keys: number[]) => {
      const random = seededRandom(...keys);
      return Array.from({ length: 5 }, () => random.next());
    };
    assert.deepEqual(draw(7, 1, 2), draw(7, 1, 2));
    assert.notDeepEqual(draw(7, 1, 2), draw(7, 1, 3));
    assert.notDeepEqual(draw(7, 1, 2), draw(8, 1, 2));
    assert.notDeepEqual(draw(1, 2), draw(2, 1));
  });

  test('uniform draws fill [0, 1) evenly', () => {
    const random = seededRandom(42);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const value = random.next();
      assert.ok(value >= 0 && value < 1);
      buckets[Math.floor(value * 10)] = (buckets[Math.floor(value * 10)] ?? 0) + 1;
    }
    for (const count of buckets) assert.ok(Math.abs(count - 10_000) < 500, `bucket of ${count}`);
  });

  test('lognormal(median, σ): half the draws below the median, 95th percentile at median · e^(1.645σ)', () => {
    const random = seededRandom(3);
    const draws = Array.from({ length: 50_000 }, () => random.lognormal(400, 0.5)).sort((a, b) => a - b);
    const p50 = draws[25_000] ?? 0;
    const p95 = draws[47_500] ?? 0;
    assert.ok(Math.abs(p50 / 400 - 1) < 0.02, `p50 ${p50}`);
    assert.ok(Math.abs(p95 / (400 * Math.exp(1.645 * 0.5)) - 1) < 0.03, `p95 ${p95}`);
  });

  test('int and chance stay in range and hit their rates', () => {
    const random = seededRandom(9);
    let hits = 0;
    for (let i = 0; i < 20_000; i++) {
      const value = random.int(3, 5);
      assert.ok(value === 3 || value === 4 || value === 5);
      if (random.chance(0.1)) hits++;
    }
    assert.ok(Math.abs(hits / 20_000 - 0.1) < 0.01);
  });

  test('seeds may be text or any safe integer', () => {
    assert.equal(seedOf('spiky'), seedOf('spiky'));
    assert.notEqual(seedOf('spiky'), seedOf('steady'));
    assert.notEqual(seedOf(1), seedOf(2 ** 32 + 1));
    assert.throws(() => seedOf(1.5), RangeError);
  });
});
