// The lanewatch collector, built by scripts/collector.sh (cached after the first build) and run with
// the repo's own collector-config/ files, every listening port chosen free on 127.0.0.1.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ManagedProcess, startProcess } from './managed-process.ts';
import { runRepoScript } from './repo-script.ts';
import { answersOk, freePort, StackStartError, waitUntilReady } from './wait.ts';

/** collector-config/<name>: the pipeline and its overlays. */
export type CollectorConfigName =
  | 'collector.yaml'
  | 'traces.yaml'
  | 'logs.yaml'
  | 'processor-token.yaml'
  | 'scale-out.yaml'
  | 'scale-out-token.yaml';

export function collectorConfigPath(name: CollectorConfigName): string {
  return fileURLToPath(new URL(`../../collector-config/${name}`, import.meta.url));
}

let binary: Promise<string> | undefined;

/**
 * Path of the built collector. The first call in a cold cache builds it (minutes on 2 cores; the
 * builder's progress goes to stderr); later calls, and later test processes, reuse the cached binary.
 */
export function buildCollector(): Promise<string> {
  binary ??= runRepoScript('collector.sh', ['build'], 80 * 60_000);
  return binary;
}

export interface ValidateResult {
  ok: boolean;
  output: string;
}

/** `otelcol validate` on the given config files (merged in order) with the given environment. */
export async function validateCollectorConfig(
  configs: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ValidateResult> {
  const bin = await buildCollector();
  const args = ['validate', ...configs.map((config) => `--config=${config}`)];
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  return { ok: code === 0, output };
}

export interface CollectorOptions {
  /** The lanewatch processor's OTLP/HTTP base URL (the exporter appends /v1/metrics). */
  processorEndpoint: string;
  /** Prometheus's remote-write URL, e.g. `${prometheus.remoteWriteUrl}`. */
  remoteWriteUrl: string;
  /** OTLP/HTTP base URL of a traces backend: adds collector-config/traces.yaml. */
  tracesEndpoint?: string;
  /** OTLP/HTTP base URL of a logs backend: adds collector-config/logs.yaml. */
  logsEndpoint?: string;
  /** The processor's bearer token (`lanewatch serve --token`): adds collector-config/processor-token.yaml. */
  processorToken?: string;
  /** Further config files merged after the repo's (later files win). */
  extraConfigs?: readonly string[];
  /** `--set key=value` overrides, e.g. `{ 'exporters.debug.verbosity': 'detailed' }`. */
  set?: Readonly<Record<string, string>>;
  /** More environment for the collector (e.g. LANEWATCH_COLLECTOR_LOG_LEVEL=debug). */
  env?: Readonly<Record<string, string>>;
  logDir?: string;
}

export interface Collector {
  /** OTLP/HTTP base URL (append /v1/metrics, /v1/traces, /v1/logs). */
  readonly otlpHttpUrl: string;
  /** OTLP/gRPC host:port. */
  readonly otlpGrpcEndpoint: string;
  /** The health_check extension: 200 once every pipeline has started. */
  readonly healthUrl: string;
  /** The collector's own metrics (Prometheus text format). */
  readonly metricsUrl: string;
  readonly logFile: string;
  readonly configs: readonly string[];
  readonly process: ManagedProcess;
  readLog(): string;
  stop(): Promise<void>;
}

export async function startCollector(options: CollectorOptions): Promise<Collector> {
  const bin = await buildCollector();
  const configs = [collectorConfigPath('collector.yaml')];
  if (options.tracesEndpoint !== undefined) configs.push(collectorConfigPath('traces.yaml'));
  if (options.logsEndpoint !== undefined) configs.push(collectorConfigPath('logs.yaml'));
  if (options.processorToken !== undefined) configs.push(collectorConfigPath('processor-token.yaml'));
  configs.push(...(options.extraConfigs ?? []));
  const args = [
    ...configs.map((config) => `--config=${config}`),
    ...Object.entries(options.set ?? {}).map(([key, value]) => `--set=${key}=${value}`),
  ];
  for (let attempt = 1; ; attempt++) {
    const [grpc, http, health, metrics] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const proc = startProcess({
      name: 'collector',
      command: bin,
      args,
      logDir: options.logDir,
      env: {
        LANEWATCH_PROCESSOR_ENDPOINT: options.processorEndpoint,
        PROMETHEUS_REMOTE_WRITE_URL: options.remoteWriteUrl,
        ...(options.tracesEndpoint === undefined
          ? {}
          : { LANEWATCH_TRACES_ENDPOINT: options.tracesEndpoint }),
        ...(options.logsEndpoint === undefined ? {} : { LANEWATCH_LOGS_ENDPOINT: options.logsEndpoint }),
        ...(options.processorToken === undefined ? {} : { LANEWATCH_TOKEN: options.processorToken }),
        LANEWATCH_OTLP_GRPC_ENDPOINT: `127.0.0.1:${grpc}`,
        LANEWATCH_OTLP_HTTP_ENDPOINT: `127.0.0.1:${http}`,
        LANEWATCH_HEALTH_CHECK_ENDPOINT: `127.0.0.1:${health}`,
        LANEWATCH_COLLECTOR_METRICS_PORT: String(metrics),
        ...options.env,
      },
    });
    const healthUrl = `http://127.0.0.1:${health}/`;
    try {
      await waitUntilReady(proc, `healthy at ${healthUrl}`, () => answersOk(healthUrl), 60_000);
    } catch (error) {
      await proc.stop();
      if (error instanceof StackStartError && attempt < 3 && /address already in use/.test(proc.readLog())) {
        continue;
      }
      throw error;
    }
    return {
      otlpHttpUrl: `http://127.0.0.1:${http}`,
      otlpGrpcEndpoint: `127.0.0.1:${grpc}`,
      healthUrl,
      metricsUrl: `http://127.0.0.1:${metrics}/metrics`,
      logFile: proc.logFile,
      configs,
      process: proc,
      readLog: () => proc.readLog(),
      stop: () => proc.stop(10_000),
    };
  }
}
