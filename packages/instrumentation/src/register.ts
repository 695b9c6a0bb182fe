/**
 * `node --require @lanewatch/instrumentation/register app.js` (or `--import`): starts the
 * OpenTelemetry Node SDK with lanewatch's instrumentation, OTLP exporters configured by the standard
 * `OTEL_*` variables, and exponential histograms. Nothing in the application changes.
 */
import { diag } from '@opentelemetry/api';
import { type RunningLanewatch, startLanewatch } from './start.ts';

const REGISTERED = Symbol.for('lanewatch.register');
const g = globalThis as typeof globalThis & { [REGISTERED]?: RunningLanewatch | null };

if (g[REGISTERED] === undefined) {
  try {
    g[REGISTERED] = startLanewatch();
  } catch (error) {
    // Telemetry must never stop the application from starting.
    diag.error(`lanewatch did not start: ${error instanceof Error ? error.message : typeof error}`);
    g[REGISTERED] = null;
  }
}

/**
 * Exports what lanewatch recorded and stops it, for an application that ends itself with
 * `process.exit()`, which gives nothing a chance to export: `await shutdown()` first. Resolves at
 * once when lanewatch is not running. Never rejects.
 */
export async function shutdown(): Promise<void> {
  await g[REGISTERED]?.shutdown().catch(() => {});
}

/** Exports what lanewatch recorded so far and goes on recording. Never rejects. */
export async function flush(): Promise<void> {
  await g[REGISTERED]?.flush().catch(() => {});
}
