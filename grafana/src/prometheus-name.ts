// The Prometheus series the collector makes of an OpenTelemetry instrument. collector-config/collector.yaml
// runs prometheus_remote_write with `translation_strategy: UnderscoreEscapingWithSuffixes` (the
// otlptranslator's rules, which Prometheus's own OTLP ingestion follows too):
//   - the name is split into tokens at every character that is not a letter or a digit, joined by "_";
//   - `{…}` annotations in the unit add nothing; a known unit adds its word (`s` → `seconds`) unless the
//     name already has that word as a token; `…/s` adds `per_second` unless the name has `per_second`
//     as ONE token — it never does after the split, hence `lanewatch_output_tokens_per_second_per_second`;
//   - a gauge of unit `1` adds `ratio` (unless a token says it), a monotonic counter adds `total`.
// Only the units lanewatch uses are known here: a new one fails loudly, so a dashboard never guesses.

export type InstrumentKind = 'histogram' | 'gauge' | 'counter';

const UNIT_WORD: Readonly<Record<string, string>> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };
const PER_UNIT_WORD: Readonly<Record<string, string>> = { s: 'second', m: 'minute', h: 'hour' };

export class UnknownUnitError extends Error {
  override name = 'UnknownUnitError';
}

function withoutAnnotations(unit: string): string {
  return unit.replace(/\{[^}]*\}/g, '').trim();
}

export function prometheusSeriesName(name: string, unit: string, kind: InstrumentKind): string {
  const tokens = name.split(/[^a-zA-Z0-9]+/).filter((token) => token !== '');
  const [main = '', per = ''] = withoutAnnotations(unit).split('/');
  if (main !== '' && !(kind === 'gauge' && main === '1')) {
    const word = UNIT_WORD[main];
    if (word === undefined)
      throw new UnknownUnitError(`${name}: unit "${unit}" has no known Prometheus word`);
    if (!tokens.includes(word)) tokens.push(word);
  }
  if (per !== '') {
    const word = PER_UNIT_WORD[per];
    if (word === undefined) throw new UnknownUnitError(`${name}: unit "${unit}" has no known per-unit word`);
    // The translator looks for `per_<word>` as one token, which a split name never has.
    tokens.push('per', word);
  }
  if (kind === 'gauge' && main === '1' && !tokens.includes('ratio')) tokens.push('ratio');
  if (kind === 'counter') {
    if (tokens.at(-1) === 'total') tokens.pop();
    tokens.push('total');
  }
  return tokens.join('_');
}

/** An attribute key as a Prometheus label: every character outside [a-zA-Z0-9_] becomes "_". */
export function prometheusLabel(attribute: string): string {
  const label = attribute.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[0-9]/.test(label) ? `key_${label}` : label;
}
