// The promise test/stack makes to every end-to-end test: nothing it started outlives the test
// process, whether the test passed, threw, or was interrupted.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startProcess } from './managed-process.ts';

const moduleUrl = new URL('./managed-process.ts', import.meta.url).href;

/** Alive and not a zombie (an orphan's zombie lingers where PID 1 does not reap). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

/** Runs a test process that starts `sleep` (and its own child) through startProcess, then `ending`. */
async function childPidsAfter(ending: string, signal?: NodeJS.Signals): Promise<number[]> {
  const script = `
    import { startProcess } from ${JSON.stringify(moduleUrl)};
    const p = startProcess({ name: 'sleeper', command: 'sh', args: ['-c', 'sleep 300 & echo $! ; wait'] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    console.log(JSON.stringify([p.pid, Number(p.readLog().trim())]));
    ${ending}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (signal !== undefined && stdout.includes(']')) child.kill(signal);
  });
  await new Promise((resolve) => child.once('close', resolve));
  const pids = JSON.parse(stdout.trim().split('\n')[0] ?? '[]') as number[];
  assert.equal(pids.length, 2, `the test process printed ${stdout}`);
  return pids;
}

for (const [name, ending, signal] of [
  ['the test process ends normally without stop()', '', undefined],
  ['the test process throws', "throw new Error('a failed test');", undefined],
  ['the test process gets SIGTERM', 'setInterval(() => {}, 1000);', 'SIGTERM'],
  ['the test process gets SIGINT', 'setInterval(() => {}, 1000);', 'SIGINT'],
] as const) {
  test(`started processes and their children are killed when ${name}`, async () => {
    const pids = await childPidsAfter(ending, signal);
    for (const pid of pids) assert.ok(await until(() => !alive(pid)), `pid ${pid} survived`);
  });
}

test('stop() ends the process group and reports how it ended', async () => {
  const proc = startProcess({ name: 'stop-test', command: 'sh', args: ['-c', 'sleep 300 & echo $! ; wait'] });
  assert.ok(await until(() => proc.readLog().trim() !== ''));
  const grandchild = Number(proc.readLog().trim());
  await proc.stop();
  assert.equal(proc.running, false);
  assert.equal(await proc.exited, 'SIGTERM');
  assert.ok(await until(() => !alive(grandchild)), 'the grandchild survived stop()');
});
