// PromQL the dashboards are made of. Queries are built from series and label names (series.ts), never
// typed as strings, and use Grafana's template variables for what the viewer picks.

/** Grafana template variables and built-ins the queries use (test/e2e substitutes them). */
export const VAR = {
  datasource: 'datasource',
  job: 'job',
  lane: 'lane',
  model: 'model',
  processor: 'processor',
} as const;

/** `rate()` windows: Grafana's own choice for a range query, and the whole picked range for a summary. */
export const RATE_INTERVAL = '$__rate_interval';
export const WHOLE_RANGE = '$__range';

export type Matcher = readonly [label: string, op: '=' | '!=' | '=~' | '!~', value: string];

/** `{label=~"$var"}` for a multi-value variable (Grafana expands it to a regex alternation). */
export function byVariable(label: string, variable: string): Matcher {
  return [label, '=~', `$${variable}`];
}

export function selector(series: string, matchers: readonly Matcher[]): string {
  if (matchers.length === 0) return series;
  return `${series}{${matchers.map(([label, op, value]) => `${label}${op}${JSON.stringify(value)}`).join(', ')}}`;
}

export function rate(series: string, matchers: readonly Matcher[], window = RATE_INTERVAL): string {
  return `rate(${selector(series, matchers)}[${window}])`;
}

export function sumBy(labels: readonly string[], expr: string): string {
  return labels.length === 0 ? `sum(${expr})` : `sum by (${labels.join(', ')}) (${expr})`;
}

/** q-quantile of a native histogram's recent observations, per group. */
export function histogramQuantile(
  q: number,
  series: string,
  matchers: readonly Matcher[],
  by: readonly string[],
  window = RATE_INTERVAL,
): string {
  return `histogram_quantile(${q}, ${sumBy(by, rate(series, matchers, window))})`;
}

/** Observations per second of a native histogram (calls per second for a milestone's histogram). */
export function histogramCountRate(
  series: string,
  matchers: readonly Matcher[],
  by: readonly string[],
): string {
  return sumBy(by, `histogram_count(${rate(series, matchers)})`);
}

/** Sum of observed values per second (tokens per second for the token-usage histogram). */
export function histogramSumRate(
  series: string,
  matchers: readonly Matcher[],
  by: readonly string[],
): string {
  return sumBy(by, `histogram_sum(${rate(series, matchers)})`);
}

export function counterRate(series: string, matchers: readonly Matcher[], by: readonly string[]): string {
  return sumBy(by, rate(series, matchers));
}

/** q as Grafana legends and titles write it: 0.95 → "p95", 0.5 → "p50". */
export function percentile(q: number): string {
  return `p${Math.round(q * 100)}`;
}
