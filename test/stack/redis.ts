// Redis for the store tests: the shared one on 127.0.0.1:6379 (started by scripts/redis.sh if
// nothing answers there), or a private one on its own port that a test may stop and restart.
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { type ManagedProcess, stackLogDir, startProcess } from './managed-process.ts';
import { runRepoScript, scriptPath } from './repo-script.ts';
import { freePort, waitUntilReady } from './wait.ts';

export interface SharedRedis {
  /** redis://127.0.0.1:6379 */
  readonly url: string;
  readonly port: number;
  /** Nothing to stop: the shared Redis outlives the test, as on the CI machine. */
  stop(): Promise<void>;
}

export interface PrivateRedis {
  readonly url: string;
  readonly port: number;
  /** The current run's log (a restart starts a new one). */
  readonly logFile: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
  /** Starts it again on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
  restart(): Promise<void>;
}

/** True when 127.0.0.1:port answers PING with PONG within a second. */
export function redisAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

export async function ensureRedis(): Promise<SharedRedis> {
  const url = await runRepoScript('redis.sh', ['ensure'], 10 * 60_000);
  return { url, port: 6379, stop: async () => {} };
}

export async function startPrivateRedis(
  options: { port?: number; logDir?: string } = {},
): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(options.logDir ?? stackLogDir(), 'redis-'));
  let proc: ManagedProcess | undefined;
  const start = async () => {
    if (proc?.running) return;
    const started = startProcess({
      name: `redis-${port}`,
      command: 'bash',
      args: [scriptPath('redis.sh'), 'run', String(port), dir],
      logDir: options.logDir,
    });
    proc = started;
    await waitUntilReady(started, `PONG on 127.0.0.1:${port}`, () => redisAnswers(port), 60_000);
  };
  await start();
  const current = () => {
    if (proc === undefined) throw new Error('private Redis never started');
    return proc;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get logFile() {
      return current().logFile;
    },
    get process() {
      return current();
    },
    stop: () => current().stop(),
    start,
    async restart() {
      await current().stop();
      await start();
    },
  };
}
