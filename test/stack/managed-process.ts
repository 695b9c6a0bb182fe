// A child process owned by a test: its output goes to a log file the test can read back, it runs in
// its own process group so stop() takes its children too, and whatever is still running when the
// test process ends (a failed test, a forgotten stop(), SIGINT/SIGTERM) is killed then.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** stdout and stderr, interleaved. */
  readonly logFile: string;
  /** Exit code, or the signal's name; settles when the process has ended. */
  readonly exited: Promise<number | string>;
  readonly running: boolean;
  readLog(): string;
  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves once it has ended. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartProcessOptions {
  name: string;
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /** Directory for `<name>.log`; defaults to this test process's stack log dir. */
  logDir?: string;
}

const live = new Set<ChildProcess>();
const logFiles: string[] = [];
let logDir: string | undefined;

/** One temp dir per test process holding every log this module writes. */
export function stackLogDir(): string {
  logDir ??= mkdtempSync(join(tmpdir(), 'lanewatch-stack-'));
  return logDir;
}

/** Every log file written by processes started in this test process, for assertions over all logs. */
export function stackLogFiles(): readonly string[] {
  return [...logFiles];
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Kills every process still running; synchronous, so it can run in an 'exit' handler. */
export function killAllStackProcesses(): void {
  for (const child of live) killGroup(child, 'SIGKILL');
  live.clear();
}

let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllStackProcesses);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Kill the children, then let the signal do what it would have done without this handler.
    process.once(signal, () => {
      killAllStackProcesses();
      process.kill(process.pid, signal);
    });
  }
}

function uniqueLogFile(dir: string, name: string): string {
  const base = join(dir, `${name}.log`);
  if (!logFiles.includes(base)) return base;
  for (let i = 2; ; i++) {
    const candidate = join(dir, `${name}-${i}.log`);
    if (!logFiles.includes(candidate)) return candidate;
  }
}

export function startProcess(options: StartProcessOptions): ManagedProcess {
  installExitHooks();
  const logFile = uniqueLogFile(options.logDir ?? stackLogDir(), options.name);
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', fd, fd],
      detached: true, // its own process group: stop() reaches whatever it forks
    });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not start ${options.command}`);
  logFiles.push(logFile);
  live.add(child);
  // A forgotten stop() must not keep the test process alive; the exit hook kills the child then.
  child.unref();
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', (error) => {
      live.delete(child);
      resolve(`spawn error: ${error.message}`);
    });
  });
  return {
    name: options.name,
    pid,
    logFile,
    exited,
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    readLog: () => readFileSync(logFile, 'utf8'),
    async stop(graceMs = 5000) {
      if (!live.has(child)) return;
      child.ref(); // keep the event loop alive until the exit is seen
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // The leader is gone; anything left in its group goes too.
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Nothing left.
      }
    },
  };
}
