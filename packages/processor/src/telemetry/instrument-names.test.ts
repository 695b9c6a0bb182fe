import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type InstrumentName, PROCESSOR_INSTRUMENT, TELEMETRY_ATTR } from './instrument-names.ts';

/**
 * The collector's `UnderscoreEscapingWithSuffixes` for the units used here (Prometheus otlptranslator):
 * dots to underscores, `s` → `seconds` and `{…}` → nothing unless the name has that word already,
 * `_total` on counters, `_ratio` on gauges of unit `1` unless already there. Checked once against the
 * real collector and Prometheus (README); this keeps a new instrument's hand-written name honest.
 */
function prometheusNameOf({ name, unit, kind }: InstrumentName): string {
  const tokens = name.split(/[^a-zA-Z0-9]+/);
  const unitWord = unit === 's' ? 'seconds' : '';
  if (unitWord !== '' && !tokens.includes(unitWord)) tokens.push(unitWord);
  if (kind === 'counter') return [...tokens.filter((t) => t !== 'total'), 'total'].join('_');
  if (unit === '1') return [...tokens.filter((t) => t !== 'ratio'), 'ratio'].join('_');
  return tokens.join('_');
}

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('instrument names', () => {
  for (const instrument of Object.values(PROCESSOR_INSTRUMENT)) {
    it(`${instrument.name} → ${instrument.prometheus}`, () => {
      assert.equal(instrument.prometheus, prometheusNameOf(instrument));
      assert.ok(
        ['', 's', '1'].includes(instrument.unit) || /^\{\w+\}$/.test(instrument.unit),
        instrument.unit,
      );
      assert.ok(instrument.description.length > 20);
      const row = README.split('\n').find((line) => line.startsWith(`| \`${instrument.name}\` |`));
      assert.ok(row, 'the README lists it');
      assert.ok(row.includes(`\`${instrument.prometheus}\``), 'with its Prometheus series');
      for (const key of instrument.attributes) assert.ok(row.includes(`\`${key}\``), `and ${key}`);
    });
  }

  it('uses only the declared attribute keys, each a lanewatch or semantic-convention name', () => {
    const keys = new Set<string>(Object.values(TELEMETRY_ATTR));
    for (const instrument of Object.values(PROCESSOR_INSTRUMENT)) {
      for (const key of instrument.attributes) assert.ok(keys.has(key), `${instrument.name}: ${key}`);
    }
    const names = Object.values(PROCESSOR_INSTRUMENT).map((i) => i.name);
    assert.equal(new Set(names).size, names.length, 'no name twice');
    // OpenTelemetry naming: no name is also the namespace of another.
    for (const name of names) assert.ok(!names.some((other) => other.startsWith(`${name}.`)), name);
  });
});
