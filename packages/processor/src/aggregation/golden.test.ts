import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decodeJsonRequest } from '../otlp/decode-json.ts';
import { observationJson } from './golden-observation.test-helper.ts';
import { LaneWindows } from './lane-windows.ts';

// Golden scenarios: testdata/<case>/input1.json, input2.json… (OTLP JSON requests, fed in order
// through the real decoder into fresh lane windows, each at the time of its latest point + 1 s) and
// expected.json (what each ingest refused, and the observations after the last one).
// UPDATE_GOLDEN=1 rewrites expected.json; review the diff before committing it.

const testdata = join(dirname(fileURLToPath(import.meta.url)), 'testdata');

function latestPointMs(request: unknown): number {
  let latest = 0;
  JSON.stringify(request, (key, value) => {
    if (key === 'timeUnixNano') latest = Math.max(latest, Number(BigInt(value) / 1_000_000n));
    return value;
  });
  return latest;
}

function runCase(dir: string) {
  const inputs = readdirSync(dir)
    .filter((f) => /^input\d+\.json$/.test(f))
    .sort((a, b) => Number(a.match(/\d+/)?.[0]) - Number(b.match(/\d+/)?.[0]));
  const windows = new LaneWindows();
  let now = 0;
  const ingests = inputs.map((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    now = latestPointMs(JSON.parse(text)) + 1000;
    const batch = decodeJsonRequest(text, windows.accepts);
    const taken = windows.ingest(batch, now);
    return {
      input: file,
      points: batch.points.length,
      rejected: batch.rejected + taken.rejected,
      errors: [...batch.errors, ...taken.errors],
    };
  });
  return { ingests, observations: windows.observe(now).map(observationJson) };
}

describe('golden scenarios', () => {
  const cases = readdirSync(testdata, { withFileTypes: true }).filter((d) => d.isDirectory());
  it('has the scenarios the processor promises', () => {
    assert.deepEqual(cases.map((c) => c.name).sort(), [
      'cumulative-with-reset',
      'delta-input',
      'malformed-point-in-good-batch',
      'two-instances-different-scales',
    ]);
  });
  for (const c of cases) {
    it(c.name, () => {
      const dir = join(testdata, c.name);
      const actual = JSON.parse(JSON.stringify(runCase(dir)));
      const expectedFile = join(dir, 'expected.json');
      if (process.env.UPDATE_GOLDEN === '1')
        writeFileSync(expectedFile, `${JSON.stringify(actual, null, 2)}\n`);
      assert.deepEqual(actual, JSON.parse(readFileSync(expectedFile, 'utf8')));
    });
  }
});
