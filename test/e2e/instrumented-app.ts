// test/e2e/app.cjs as a child process, started the way a user starts an app:
// `node --require @lanewatch/instrumentation/register app.cjs` (the built dist: no source condition),
// exporting OTLP/HTTP to the given endpoint every `exportIntervalMs`.
import { fileURLToPath } from 'node:url';
import { type ManagedProcess, startProcess, waitUntilReady } from '../stack/index.ts';
import type { ProviderCall } from './provider-lanes.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const appScript = fileURLToPath(new URL('./app.cjs', import.meta.url));

export interface CallResult {
  /** HTTP status → calls answered with it. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Exceptions the application saw, by class: none is the expectation. */
  readonly failures: Readonly<Record<string, number>>;
  readonly ms: number;
}

export interface AdmissionJob {
  readonly id: string;
  readonly deadline_s: number;
  readonly secret_class?: string;
}

export interface InstrumentedApp {
  readonly process: ManagedProcess;
  readonly serviceName: string;
  calls(call: ProviderCall, count: number, concurrency: number): Promise<CallResult>;
  admit(store: string, jobs: readonly AdmissionJob[]): Promise<{ admitted: boolean; lane: string | null }[]>;
  /** The app's live heap after a full GC (needs `exposeGc`), and its RSS as Node reports it. */
  memory(): Promise<{ heapUsed: number; rss: number; collected: boolean }>;
  /** Asks the app to finish (the SDK flushes on the way out), then stops it. */
  stop(): Promise<void>;
}

export async function startInstrumentedApp(options: {
  readonly otlpEndpoint: string;
  readonly laneMap: string;
  readonly serviceName: string;
  readonly exportIntervalMs?: number;
  readonly name?: string;
  /** `--expose-gc`, so `memory()` measures what is live rather than what awaits collection. */
  readonly exposeGc?: boolean;
}): Promise<InstrumentedApp> {
  const proc = startProcess({
    name: options.name ?? 'app',
    command: process.execPath,
    args: [
      ...(options.exposeGc ? ['--expose-gc'] : []),
      '--require',
      '@lanewatch/instrumentation/register',
      appScript,
    ],
    cwd: repoRoot,
    env: {
      OTEL_SERVICE_NAME: options.serviceName,
      OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
      OTEL_METRIC_EXPORT_INTERVAL: String(options.exportIntervalMs ?? 1000),
      OTEL_BSP_SCHEDULE_DELAY: '1000',
      LANEWATCH_LANE_MAP: options.laneMap,
    },
  });
  let port: number | undefined;
  await waitUntilReady(proc, 'its control port', async () => {
    port = Number(/control port (\d+)/.exec(proc.readLog())?.[1]) || undefined;
    return port !== undefined;
  });
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const result = (await response.json()) as T;
    if (!response.ok) throw new Error(`app ${path}: ${response.status} ${JSON.stringify(result)}`);
    return result;
  };
  return {
    process: proc,
    serviceName: options.serviceName,
    calls: (call, count, concurrency) => post<CallResult>('/calls', { call, count, concurrency }),
    async admit(store, jobs) {
      const { decisions } = await post<{ decisions: { admitted: boolean; lane: string | null }[] }>(
        '/admit',
        {
          store,
          jobs,
        },
      );
      return decisions;
    },
    memory: () => post('/memory', {}),
    async stop() {
      if (!proc.running) return;
      await post('/exit', {}).catch(() => undefined);
      const ended = await Promise.race([
        proc.exited,
        new Promise((r) => setTimeout(() => r('timeout'), 15_000)),
      ]);
      if (ended === 'timeout') await proc.stop();
    },
  };
}

/** Resident set size of a process, from /proc (Linux), in bytes. */
export async function residentBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}
