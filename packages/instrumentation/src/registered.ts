import type { RunningLanewatch } from './start.ts';

/** Where `register` keeps what it started, for the process (one SDK per process, whichever module copy). */
export const REGISTERED = Symbol.for('lanewatch.register');

/**
 * What `node --require/--import @lanewatch/instrumentation/register` started in this process —
 * `shutdown()`: export what is pending, then stop —
 * or undefined when it did not start (not registered, `OTEL_SDK_DISABLED`, an old Node). Reading it
 * starts nothing. register installs no signal handler: an application that ends by `process.exit()`,
 * or in a SIGTERM handler of its own, calls `await registered()?.shutdown()` first.
 */
export function registered(): RunningLanewatch | undefined {
  const value = (globalThis as { [REGISTERED]?: RunningLanewatch | null })[REGISTERED];
  return value ?? undefined;
}
