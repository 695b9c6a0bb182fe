/**
 * `node --require @lanewatch/instrumentation/register app.js` (or `--import`): starts the
 * OpenTelemetry Node SDK with lanewatch's instrumentation, OTLP exporters configured by the standard
 * `OTEL_*` variables, and exponential histograms. Nothing in the application changes.
 */
import { diag } from '@opentelemetry/api';
import { REGISTERED } from './registered.ts';
import { startLanewatch } from './start.ts';

const g = globalThis as typeof globalThis & { [REGISTERED]?: unknown };

if (g[REGISTERED] === undefined) {
  try {
    g[REGISTERED] = startLanewatch();
  } catch (error) {
    // Telemetry must never stop the application from starting.
    diag.error(`lanewatch did not start: ${error instanceof Error ? error.message : typeof error}`);
    g[REGISTERED] = null;
  }
}
