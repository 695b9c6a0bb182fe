// For tests: a Redis of a test's own, empty, on `port` — to stop and start again as a restart.
import { type ChildProcess, spawn } from 'node:child_process';
import { createClient } from 'redis';
import { waitUntil } from '../wait.test-helper.ts';

/** Starts `redis-server` on 127.0.0.1:`port`, with no persistence, once it accepts connections. */
export async function startPrivateRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  await waitUntil(
    'redis-server to accept connections',
    async () => {
      const probe = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.close();
        return true;
      } catch {
        return false;
      }
    },
    10_000,
  );
  return child;
}
