import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../../../scripts/chromium.sh', import.meta.url));

/** For tests: Debian's chromium, installed by `scripts/chromium.sh ensure` when absent; its path. */
export async function ensureChromium(): Promise<string> {
  const { stdout } = await run('bash', [SCRIPT, 'ensure'], { timeout: 600_000, maxBuffer: 1 << 20 });
  const path = stdout.trim().split('\n').at(-1) ?? '';
  if (!path) throw new Error('scripts/chromium.sh ensure printed no path');
  return path;
}

/** Headless, offline, with a throwaway profile: what the report tests load a page with. */
export async function chromium(binary: string, args: readonly string[], file: string): Promise<string> {
  const profile = await mkdtemp(join(tmpdir(), 'lanewatch-chromium-'));
  try {
    const { stdout } = await run(
      binary,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--user-data-dir=${profile}`,
        ...args,
        pathToFileURL(file).toString(),
      ],
      { timeout: 120_000, maxBuffer: 64 << 20 },
    );
    return stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}
