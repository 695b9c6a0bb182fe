// The parts of Prometheus's HTTP API the end-to-end tests read beyond test/stack's instant query:
// range queries (what a Grafana time-series panel runs), series, and every label name and value.
import { prometheusApi } from '../stack/prometheus.ts';

export interface RangeSeries {
  metric: Record<string, string>;
  values?: [number, string][];
  histograms?: [number, unknown][];
}

export function queryRange(base: string, expr: string, startS: number, endS: number, stepS: number) {
  const params = new URLSearchParams({
    query: expr,
    start: String(startS),
    end: String(endS),
    step: String(stepS),
  });
  return prometheusApi<{ result: RangeSeries[] }>(`${base}/api/v1/query_range?${params}`).then(
    (data) => data.result,
  );
}

export function queryInstant(base: string, expr: string, timeS?: number) {
  const params = new URLSearchParams({ query: expr });
  if (timeS !== undefined) params.set('time', String(timeS));
  return prometheusApi<{
    result: { metric: Record<string, string>; value?: [number, string]; histogram?: unknown }[];
  }>(`${base}/api/v1/query?${params}`).then((data) => data.result);
}

export function seriesMatching(base: string, selector: string) {
  return prometheusApi<Record<string, string>[]>(
    `${base}/api/v1/series?${new URLSearchParams({ 'match[]': selector })}`,
  );
}

/** Every label name and every value of every label Prometheus holds, one per line. */
export async function everyLabelAndValue(base: string): Promise<string> {
  const names = await prometheusApi<string[]>(`${base}/api/v1/labels`);
  const lines: string[] = [];
  for (const name of names) {
    lines.push(name);
    lines.push(...(await prometheusApi<string[]>(`${base}/api/v1/label/${encodeURIComponent(name)}/values`)));
  }
  return lines.join('\n');
}

/** True when a range result has at least one finite value (NaN and ±Inf are "no data" on a panel). */
export function hasFiniteValue(result: readonly RangeSeries[]): boolean {
  return result.some((series) => (series.values ?? []).some(([, value]) => Number.isFinite(Number(value))));
}
