import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CliContext, Command } from './cli-context.ts';
import { runCli } from './run-cli.ts';

function context(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    env,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    stopRequested: Promise.resolve('SIGTERM'),
  };
  return { ctx, out, err };
}

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url));

describe('lanewatch CLI', () => {
  it('prints help with exit 0, and usage with exit 2 when no command is given', async () => {
    const help = context();
    assert.equal(await runCli(['--help'], help.ctx), 0);
    assert.match(help.out.join(''), /serve +receive OTLP metrics/);
    const none = context();
    assert.equal(await runCli([], none.ctx), 2);
    const serveHelp = context();
    assert.equal(await runCli(['serve', '--help'], serveHelp.ctx), 0);
    assert.match(serveHelp.out.join(''), /LANEWATCH_PORT/);
  });

  it('exits 2 with a clear message on an unknown command or a bad value', async () => {
    const unknown = context();
    assert.equal(await runCli(['sevre'], unknown.ctx), 2);
    assert.match(unknown.err.join(''), /unknown command "sevre"/);
    const bad = context({ LANEWATCH_PORT: 'abc' });
    assert.equal(await runCli(['serve'], bad.ctx), 2);
    assert.equal(
      bad.err.join(''),
      'lanewatch serve: LANEWATCH_PORT must be a port number from 0 to 65535, got "abc"\n',
    );
  });

  it('exits 2 naming the file, line and field of a bad lanes file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-'));
    try {
      await writeFile(join(dir, 'lanes.yaml'), 'lanes:\n  fast:\n    handoff_s: fast\n');
      const bad = context();
      assert.equal(
        await runCli(['serve', '--lanes', join(dir, 'lanes.yaml'), '--store', 'memory:'], bad.ctx),
        2,
      );
      assert.match(
        bad.err.join(''),
        /lanes\.yaml line 3: "handoff_s" must be a number of seconds, got "fast"/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a bad "match" URL of a lanes file without its credentials or query', async () => {
    const SECRET = 'CANARY-0b6d';
    const dir = await mkdtemp(join(tmpdir(), 'cli-'));
    try {
      const file = join(dir, 'lanes.yaml');
      await writeFile(
        file,
        `lanes:\n  local:\n    match: [http://u:p-${SECRET}@127.0.0.1:11434/api?key=${SECRET}]\n`,
      );
      const bad = context();
      assert.equal(await runCli(['serve', '--lanes', file, '--store', 'memory:'], bad.ctx), 2);
      assert.equal(
        bad.err.join(''),
        `lanewatch serve: ${file} line 3: "match" entries must be URL prefixes like http://127.0.0.1:8000/v1; entry 1 (http://127.0.0.1:11434/api) carries a query or credentials; remove them\n`,
      );
      assert.equal(bad.out.join(''), '');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('dispatches to any command in the list (how demo and probe plug in)', async () => {
    const demo: Command = {
      name: 'demo',
      summary: 'a demo',
      run: async (args) => (args[0] === 'ok' ? 0 : 3),
    };
    const { ctx } = context();
    assert.equal(await runCli(['demo', 'ok'], ctx, [demo]), 0);
    assert.equal(await runCli(['demo'], ctx, [demo]), 3);
  });

  it('serves until SIGTERM, then writes the last records and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cli-serve-'));
    try {
      await writeFile(join(dir, 'lanes.yaml'), 'lanes:\n  local: {can_hold_secret: true}\n');
      const child = spawn(
        process.execPath,
        ['--conditions=lanewatch-source', CLI, 'serve', '--port', '0', '--lanes', join(dir, 'lanes.yaml')],
        {
          cwd: dir,
          env: { ...process.env, LANEWATCH_STORE: 'file:./lane-health.json' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      while (!/listening on (http:\/\/\S+)/.test(stdout)) await once(child.stdout, 'data');
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? '';
      const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string };
      assert.equal(health.status, 'ok');
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number];
      assert.equal(code, 0);
      const doc = JSON.parse(await readFile(join(dir, 'lane-health.json'), 'utf8')) as {
        lanes: Record<string, { state: string; reasons: string[] }>;
      };
      assert.equal(doc.lanes.local?.state, 'unknown');
      assert.equal(doc.lanes.local?.reasons[0], '0 samples, fewer than min_samples 50');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
