import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, test } from 'node:test';

const CLI = new URL('./cli.ts', import.meta.url).pathname;

describe('lanewatch-simulator', () => {
  test('starts the named lanes, prints their URLs, serves them, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'steady', 'thinker', '--json', '--knob', 'headersMedianMs=5'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const lines = createInterface({ input: child.stdout });
    const lanes: Array<{ lane: string; url: string }> = [];
    for await (const line of lines) {
      lanes.push(JSON.parse(line) as { lane: string; url: string });
      if (lanes.length === 2) break;
    }
    assert.deepEqual(
      lanes.map((lane) => lane.lane),
      ['steady', 'thinker'],
    );
    const response = await fetch(`${lanes[0]?.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', stream: true }),
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /data: \[DONE\]/);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
  });

  test('a bad lane is exit code 2 with what to change', async () => {
    const child = spawn(process.execPath, [CLI, 'speedy'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(child, 'exit');
    assert.equal(code, 2);
    assert.match(stderr, /"speedy" is not PROFILE\[:PORT\]/);
  });
});
