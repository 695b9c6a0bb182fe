import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { createFileStore, type LaneHealthDocument } from './file-store.ts';
import { openLaneHealthStore } from './open-store.ts';

describe('file store', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lane-health-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one JSON document with every lane and leaves no temporary file behind', async () => {
    const path = join(dir, 'one.json');
    const store = await createFileStore({ path });
    await store.write([exampleRecord('a'), exampleRecord('b')]);
    await store.write([exampleRecord('a', { medianS: 2 })]);
    const doc = JSON.parse(await readFile(path, 'utf8')) as LaneHealthDocument;
    assert.equal(doc.schema, 'lanewatch.lane-health/v1');
    assert.deepEqual(Object.keys(doc.lanes).sort(), ['a', 'b']);
    assert.ok(
      (doc.lanes.a?.quantiles.time_to_first_output?.p50 ?? 0) > 1,
      'the newer record of a replaced the older',
    );
    assert.deepEqual(await readdir(dir), ['one.json']);
    await store.close();
  });

  it('is readable in full at every moment while being rewritten', async () => {
    const path = join(dir, 'busy.json');
    const store = await createFileStore({ path });
    await store.write([exampleRecord('a')]);
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 40; i++)
        await store.write([exampleRecord('a', { seed: i }), exampleRecord(`l${i}`)]);
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const doc = JSON.parse(await readFile(path, 'utf8')) as LaneHealthDocument;
      assert.ok(doc.lanes.a, 'lane a is always there');
      reads += 1;
    }
    await writer;
    assert.ok(reads > 5, `read ${reads} times while writing`);
    assert.equal((await store.readAll()).length, 41);
    await store.close();
  });

  it('merges writes asked for while one is in flight, and loses none', async () => {
    const path = join(dir, 'merge.json');
    const store = await createFileStore({ path });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.write([exampleRecord(`m${i}`)])));
    assert.equal((await store.readAll()).length, 20);
    await store.close();
  });

  it('picks up what a previous process left, so the processor resumes from it', async () => {
    const path = join(dir, 'resume.json');
    const first = await createFileStore({ path });
    await first.write([exampleRecord('kept')]);
    await first.close();
    const second = await createFileStore({ path });
    await second.write([exampleRecord('new')]);
    assert.deepEqual((await second.readAll()).map((r) => r.lane).sort(), ['kept', 'new']);
    await second.close();
  });

  it('never rejects a write it cannot make; it reports it and keeps the records', async () => {
    // A directory where the document should be: the rename fails whoever runs the test, root included.
    const path = join(dir, 'occupied');
    await mkdir(join(path, 'inside'), { recursive: true });
    const errors: string[] = [];
    const store = await createFileStore({ path, onError: (e) => errors.push(e.name) });
    await store.write([exampleRecord('a')]);
    assert.ok(errors.length > 0);
    assert.equal(store.status().connected, false);
    assert.match(store.status().lastError ?? '', /^E[A-Z]+$/);
    assert.deepEqual(await readdir(dir).then((names) => names.filter((n) => n.endsWith('.tmp'))), []);
    await store.close();
  });

  it('tells watchers about every newer record', async () => {
    const path = join(dir, 'watched.json');
    const store = await openLaneHealthStore(`file:${path}`);
    const reader = await createFileStore({ path, watchIntervalMs: 20 });
    const seen: LaneHealth[] = [];
    const stop = await reader.watch((r) => seen.push(r));
    await store.write([exampleRecord('w', { now: Date.now() })]);
    for (let i = 0; i < 100 && seen.length === 0; i++) await sleep(20);
    assert.equal(seen[0]?.lane, 'w');
    await stop();
    await store.close();
    await reader.close();
  });
});
