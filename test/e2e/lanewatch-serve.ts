// `lanewatch serve` (the built CLI) as a child process on a fixed port, so the collector's exporter
// finds it again after a restart.
import { fileURLToPath } from 'node:url';
import { type ManagedProcess, startProcess, waitUntilReady } from '../stack/index.ts';

const cli = fileURLToPath(new URL('../../packages/processor/dist/cli.js', import.meta.url));

export interface ServeOptions {
  readonly port: number;
  /** `redis://127.0.0.1:6379?prefix=…` */
  readonly store: string;
  /** Where the processor exports its own metrics (the collector's OTLP/HTTP base URL). */
  readonly otlpEndpoint?: string;
  readonly intervalS: number;
  readonly windowS?: number;
  readonly sliceS?: number;
  readonly minSamples?: number;
}

export interface LanewatchServe {
  readonly url: string;
  readonly process: ManagedProcess;
  /** Every lane record the HTTP feed serves now. */
  lanes<T>(): Promise<T[]>;
  stop(): Promise<void>;
}

export async function startLanewatchServe(
  options: ServeOptions,
  name = 'processor',
): Promise<LanewatchServe> {
  const url = `http://127.0.0.1:${options.port}`;
  const proc = startProcess({
    name,
    command: process.execPath,
    args: [
      cli,
      'serve',
      `--port=${options.port}`,
      '--host=127.0.0.1',
      `--store=${options.store}`,
      `--interval=${options.intervalS}`,
      `--window=${options.windowS ?? 300}`,
      `--slice=${options.sliceS ?? 10}`,
      `--min-samples=${options.minSamples ?? 50}`,
      ...(options.otlpEndpoint === undefined ? [] : [`--otlp-endpoint=${options.otlpEndpoint}`]),
    ],
  });
  await waitUntilReady(proc, `GET ${url}/healthz`, async () => {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  });
  return {
    url,
    process: proc,
    async lanes<T>() {
      const response = await fetch(`${url}/v1/lanes`, { signal: AbortSignal.timeout(5000) });
      return ((await response.json()) as { lanes: T[] }).lanes;
    },
    stop: () => proc.stop(10_000),
  };
}
