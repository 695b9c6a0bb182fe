import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const TESTDATA = join(import.meta.dirname, '..', 'testdata');

/**
 * Compares bytes with `testdata/<name>`. `UPDATE_GOLDEN=1` rewrites the file instead: review the
 * diff like code, since these files are the wire formats as the providers send them.
 */
export function assertGolden(name: string, actual: string): void {
  const path = join(TESTDATA, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.equal(
    actual,
    readFileSync(path, 'utf8'),
    `bytes differ from testdata/${name} (UPDATE_GOLDEN=1 rewrites it)`,
  );
}

/** The fixed context golden files are written with. */
export const GOLDEN_CONTEXT = {
  model: 'sim-model',
  createdAtMs: 1_780_000_000_000,
  id: 'golden',
  includeUsage: true,
} as const;
