import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const TESTDATA = join(import.meta.dirname, '..', 'testdata');

/**
 * Compares what a writer sent with `testdata/<name>`: text as UTF-8, bytes (binary framings) as they
 * are. `UPDATE_GOLDEN=1` rewrites the file instead: review the diff like code, since these files are
 * the wire formats as the providers send them.
 */
export function assertGolden(name: string, actual: string | Uint8Array): void {
  const path = join(TESTDATA, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  const message = `bytes differ from testdata/${name} (UPDATE_GOLDEN=1 rewrites it)`;
  if (typeof actual === 'string') {
    assert.equal(actual, readFileSync(path, 'utf8'), message);
    return;
  }
  const expected = readFileSync(path);
  const bytes = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  if (bytes.equals(expected)) return;
  let offset = 0;
  while (offset < bytes.length && bytes[offset] === expected[offset]) offset++;
  assert.fail(
    `${message}: ${bytes.length} bytes against ${expected.length}, first difference at byte ${offset}`,
  );
}

/** The fixed context golden files are written with. */
export const GOLDEN_CONTEXT = {
  model: 'sim-model',
  createdAtMs: 1_780_000_000_000,
  id: 'golden',
  includeUsage: true,
} as const;
