// Ports and readiness: a free port from the kernel, and polling until a started process answers
// (or has died, in which case its log says why).
import { createServer } from 'node:net';
import type { ManagedProcess } from './managed-process.ts';

/** A port free on 127.0.0.1 right now; the caller binds it at once (another process may take it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP address from listen(0)');
  return address.port;
}

export class StackStartError extends Error {
  override name = 'StackStartError';
}

function logTail(proc: ManagedProcess, lines = 30): string {
  return proc.readLog().trimEnd().split('\n').slice(-lines).join('\n');
}

/**
 * Polls `ready` every 100 ms until it returns true. Fails with the process's log tail when the
 * process exits first or `timeoutMs` passes.
 */
export async function waitUntilReady(
  proc: ManagedProcess,
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (!proc.running) {
      throw new StackStartError(
        `${proc.name} exited (${await proc.exited}) before ${what}; log ${proc.logFile}:\n${logTail(proc)}`,
      );
    }
    if (await ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new StackStartError(
    `${proc.name}: no ${what} after ${timeoutMs} ms; log ${proc.logFile}:\n${logTail(proc)}`,
  );
}

/** True when GET url answers 2xx within a second. */
export async function answersOk(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
  await response.arrayBuffer();
  return response.ok;
}
