// A private Prometheus (Debian's 2.42, installed by scripts/prometheus.sh) with the remote-write
// receiver and native histograms, on a free port with a throwaway data dir.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { type ManagedProcess, stackLogDir, startProcess } from './managed-process.ts';
import { runRepoScript, scriptPath } from './repo-script.ts';
import { answersOk, freePort, StackStartError, waitUntilReady } from './wait.ts';

/** A native histogram as the query API returns it (buckets: [boundary rule, lower, upper, count]). */
export interface NativeHistogramValue {
  count: string;
  sum: string;
  buckets?: [number, string, string, string][];
}

export interface PromSample {
  metric: Record<string, string>;
  /** [unix seconds, value] for a float sample. */
  value?: [number, string];
  /** [unix seconds, histogram] for a native-histogram sample. */
  histogram?: [number, NativeHistogramValue];
}

export interface Prometheus {
  readonly url: string;
  /** Where the collector's prometheus_remote_write exporter sends. */
  readonly remoteWriteUrl: string;
  readonly logFile: string;
  readonly process: ManagedProcess;
  /** Instant query; throws on a PromQL error with Prometheus's message. */
  query(promql: string, time?: Date): Promise<PromSample[]>;
  /** Every metric name Prometheus holds. */
  metricNames(): Promise<string[]>;
  /** Label sets of the series matching a selector, e.g. `{__name__=~"lanewatch_.+"}`. */
  series(match: string): Promise<Record<string, string>[]>;
  stop(): Promise<void>;
}

interface ApiResponse<T> {
  status: 'success' | 'error';
  data: T;
  errorType?: string;
  error?: string;
}

/** One GET of Prometheus's HTTP API: its `data`, or an error with Prometheus's own error type and message. */
export async function prometheusApi<T>(url: string, timeoutMs = 15_000): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const body = (await response.json()) as ApiResponse<T>;
  if (body.status !== 'success') throw new Error(`Prometheus ${url}: ${body.errorType}: ${body.error}`);
  return body.data;
}

export async function startPrometheus(options: { logDir?: string } = {}): Promise<Prometheus> {
  await runRepoScript('prometheus.sh', ['install'], 10 * 60_000);
  const dir = mkdtempSync(join(options.logDir ?? stackLogDir(), 'prometheus-'));
  // A port can be taken between choosing and binding it: try a few.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const proc = startProcess({
      name: 'prometheus',
      command: 'bash',
      args: [scriptPath('prometheus.sh'), 'run', dir, String(port)],
      logDir: options.logDir,
    });
    try {
      await waitUntilReady(proc, `ready at ${url}/-/ready`, () => answersOk(`${url}/-/ready`), 60_000);
    } catch (error) {
      await proc.stop();
      if (error instanceof StackStartError && attempt < 3 && /address already in use/.test(proc.readLog())) {
        continue;
      }
      throw error;
    }
    return {
      url,
      remoteWriteUrl: `${url}/api/v1/write`,
      logFile: proc.logFile,
      process: proc,
      async query(promql, time) {
        const params = new URLSearchParams({ query: promql });
        if (time !== undefined) params.set('time', String(time.getTime() / 1000));
        const data = await prometheusApi<{ resultType: string; result: PromSample[] }>(
          `${url}/api/v1/query?${params}`,
        );
        return data.result;
      },
      metricNames: () => prometheusApi<string[]>(`${url}/api/v1/label/__name__/values`),
      series: (match) =>
        prometheusApi<Record<string, string>[]>(
          `${url}/api/v1/series?${new URLSearchParams({ 'match[]': match })}`,
        ),
      stop: () => proc.stop(),
    };
  }
}
