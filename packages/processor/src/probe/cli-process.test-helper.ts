import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

export interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock ms from spawn to exit. */
  readonly ms: number;
}

export interface Running {
  readonly child: ReturnType<typeof spawn>;
  /** Resolves once stdout has matched `pattern`. */
  stdoutMatches(pattern: RegExp): Promise<void>;
  readonly finished: Promise<Finished>;
}

const running = new Set<ReturnType<typeof spawn>>();

/** Kills every process `lanewatch()` started that is still running; for `after()` hooks. */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * `lanewatch …` as a user runs it: a real process on the TypeScript sources, stdout and stderr piped.
 * A process still running after `limitMs` is killed, so a failed test never leaves one behind.
 */
export function lanewatch(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; limitMs?: number } = {},
): Running {
  const started = performance.now();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...options.env })) if (v !== undefined) env[k] = v;
  const child = spawn(process.execPath, ['--conditions=lanewatch-source', CLI, ...args], {
    cwd: options.cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const limit = setTimeout(() => child.kill('SIGKILL'), options.limitMs ?? 120_000);
  child.once('exit', () => {
    clearTimeout(limit);
    running.delete(child);
  });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of [...waiters]) {
      if (w.pattern.test(stdout)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const finished = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
    ms: performance.now() - started,
  }));
  return {
    child,
    finished,
    stdoutMatches: (pattern) =>
      pattern.test(stdout)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiters.push({ pattern, resolve })),
            finished.then((f) => {
              throw new Error(`exited ${f.code} before stdout matched ${pattern}:\n${f.stdout}\n${f.stderr}`);
            }),
          ]),
  };
}
