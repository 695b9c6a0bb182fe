import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import { createMemoryStore } from './memory-store.ts';

describe('memory store', () => {
  it('keeps the latest record per lane and tells watchers about each one', async () => {
    const store = createMemoryStore();
    const seen: string[] = [];
    const stop = await store.watch((r) => seen.push(`${r.lane}@${r.updated_at}`));
    const a1 = exampleRecord('a', { now: 1_000_000 });
    const a2 = exampleRecord('a', { now: 2_000_000 });
    const b = exampleRecord('b', { now: 2_000_000 });
    await store.write([a1]);
    await store.write([a2, b]);
    assert.deepEqual(
      (await store.readAll()).map((r) => r.updated_at),
      [a2.updated_at, b.updated_at],
    );
    assert.equal((await store.read('a'))?.updated_at, a2.updated_at);
    assert.equal(await store.read('c'), undefined);
    assert.equal(seen.length, 3);
    await stop();
    await store.write([a1]);
    assert.equal(seen.length, 3);
    assert.equal(store.status().connected, true);
    await store.close();
  });
});
