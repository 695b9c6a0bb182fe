// Runs one of the repo's scripts/*.sh and returns its last stdout line (the scripts print a path or
// URL there); their progress goes to this process's stderr, so a slow first build shows in CI.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export function scriptPath(script: string): string {
  return fileURLToPath(new URL(`../../scripts/${script}`, import.meta.url));
}

export async function runRepoScript(
  script: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<string> {
  const child = spawn('bash', [scriptPath(script), ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
  });
  if (code !== 0) {
    const why = signal === null ? `exit code ${code}` : `${signal} (timeout ${timeoutMs} ms?)`;
    throw new Error(`scripts/${script} ${args.join(' ')} failed: ${why}; its stderr is above`);
  }
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}
