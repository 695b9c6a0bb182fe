import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { type ProviderServer, type Script, startProviderServer } from '@lanewatch/simulator';
import { killAll, lanewatch } from './cli-process.test-helper.ts';

// `lanewatch probe` as a user runs it, in the cases of the README's "When it goes wrong" table and the
// options table that no other test runs: a real process against a local provider server.

const ERROR_CANARY = 'CANARY-error-8a2d';
const KEY_CANARY = 'sk-CANARY-key-3c7e';
const env = { LANEWATCH_PROBE_API_KEY: KEY_CANARY };

function stream(): Script {
  return {
    kind: 'stream',
    headersDelayMs: 5,
    pieces: [
      { kind: 'start', delayMs: 1 },
      { kind: 'text', delayMs: 2, text: 'ok' },
      { kind: 'finish', delayMs: 1, reason: 'stop' },
      { kind: 'usage', delayMs: 0 },
      { kind: 'done', delayMs: 0 },
    ],
  };
}

function assertQuiet(text: string): void {
  for (const canary of [ERROR_CANARY, KEY_CANARY])
    assert.ok(!text.includes(canary), `"${canary}" leaked:\n${text}`);
}

const servers: ProviderServer[] = [];
async function provider(respond: () => Script): Promise<ProviderServer> {
  const server = await startProviderServer({ respond });
  servers.push(server);
  return server;
}
after(async () => {
  killAll();
  for (const server of servers) await server.close();
});

interface ProbeJson {
  calls: number;
  samples: number;
  stopped_early: boolean;
  outcomes: Record<string, number>;
  errors: Record<string, number>;
  retries: number;
  backoff_s: number[];
  retry_after_too_long: number;
}

describe('lanewatch probe, as its README documents it', { concurrency: true }, () => {
  it('404 on the first call: stops, says there is no such endpoint for the format, exit 2', async () => {
    const server = await provider(() => ({
      kind: 'error',
      status: 404,
      headersDelayMs: 1,
      message: ERROR_CANARY,
    }));
    const done = await lanewatch(
      ['probe', '--base-url', `${server.url}/v1`, '--model', 'm', '--interval', '0'],
      {
        env,
      },
    ).finished;
    assert.equal(done.code, 2, done.stderr);
    assert.equal(server.sends.length, 1, 'no second call');
    assert.match(
      done.stderr,
      /^lanewatch probe: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions answered 404: no openai-chat endpoint there; check --base-url/,
    );
    assertQuiet(done.stdout + done.stderr);
  });

  it('403: stops at once, no retry, naming the variable to set, exit 3', async () => {
    const server = await provider(() => ({
      kind: 'error',
      status: 403,
      headersDelayMs: 1,
      message: ERROR_CANARY,
    }));
    const done = await lanewatch(
      ['probe', '--base-url', `${server.url}/v1`, '--model', 'm', '--interval', '0'],
      {
        env,
      },
    ).finished;
    assert.equal(done.code, 3, done.stderr);
    assert.equal(server.sends.length, 1);
    assert.match(
      done.stderr,
      /answered 403: the API key was refused; set LANEWATCH_PROBE_API_KEY \(or --api-key\)/,
    );
    assertQuiet(done.stdout + done.stderr);
  });

  it('no call succeeded: the table is printed anyway, a 500 counted as http_5xx and a call past --timeout as timeout, exit 1', async () => {
    let first = true;
    const server = await provider(() => {
      if (!first) return { kind: 'no-answer' };
      first = false;
      return { kind: 'error', status: 500, headersDelayMs: 1, message: ERROR_CANARY };
    });
    const done = await lanewatch(
      ['probe', '--base-url', `${server.url}/v1`, '--model', 'm', '--samples', '2', '--interval', '0'],
      { env: { ...env, LANEWATCH_PROBE_TIMEOUT_S: '0.3', LANEWATCH_PROBE_SAMPLES: '9' }, limitMs: 30_000 },
    ).finished;
    assert.equal(done.code, 1, done.stderr);
    assert.match(done.stdout, /^milestone +ok +p50 s/m);
    assert.match(done.stdout, /^time_to_first_text +0 +– +– +– +– +2$/m);
    assert.match(done.stdout, /2 calls over 2 samples .*: error 2; errors: http_5xx 1, timeout 1/);
    assertQuiet(done.stdout + done.stderr);
  });

  it('--retries 0: a 429 is counted and the sample given up, with no wait', async () => {
    const server = await provider(() => ({
      kind: 'error',
      status: 429,
      headersDelayMs: 1,
      retryAfterSeconds: 5,
      message: ERROR_CANARY,
    }));
    const done = await lanewatch(
      [
        ...['probe', '--base-url', server.url, '--model', 'm', '--format', 'anthropic'],
        ...['--samples', '2', '--interval', '0', '--retries', '0', '--json'],
      ],
      { env, limitMs: 30_000 },
    ).finished;
    assert.equal(done.code, 1, done.stderr);
    const report = JSON.parse(done.stdout) as ProbeJson;
    assert.equal(report.calls, 2);
    assert.equal(report.retries, 0);
    assert.deepEqual(report.backoff_s, []);
    assert.deepEqual(report.errors, { rate_limited: 2 });
    assertQuiet(done.stdout + done.stderr);
  });

  it('a Retry-After over 30 s gives the sample up at once instead of waiting it out', async () => {
    let first = true;
    const server = await provider(() => {
      if (!first) return stream();
      first = false;
      return { kind: 'error', status: 429, headersDelayMs: 1, retryAfterSeconds: 120, message: ERROR_CANARY };
    });
    // Waiting out the Retry-After would take 120 s: the limit kills that probe long before.
    const done = await lanewatch(
      [
        'probe',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--format',
        'ollama',
        '--samples',
        '2',
        '--interval',
        '0',
      ],
      { env, limitMs: 30_000 },
    ).finished;
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /^1 samples given up: Retry-After longer than 30 s$/m);
    assert.match(done.stdout, /2 calls over 2 samples .*: error 1, ok 1; errors: rate_limited 1/);
    assertQuiet(done.stdout + done.stderr);
  });

  it('Ctrl-C: stops after the call in flight and prints what was measured', async () => {
    const server = await provider(stream);
    const run = lanewatch(
      [
        'probe',
        '--base-url',
        server.url,
        '--model',
        'm',
        '--format',
        'ollama',
        '--samples',
        '200',
        '--interval',
        '0.05',
      ],
      { env, limitMs: 30_000 },
    );
    await run.stdoutMatches(/^lanewatch probe: 200 samples of m/m);
    while (server.sends.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill('SIGINT');
    const done = await run.finished;
    assert.equal(done.signal, null);
    assert.equal(done.code, 0, done.stderr);
    const taken = Number(/(\d+) calls over (\d+) samples/.exec(done.stdout)?.[2]);
    assert.ok(taken >= 2 && taken < 200, `${taken} samples taken`);
    assert.match(done.stdout, /^time_to_first_text +\d+ +[\d.]+/m);
    assert.match(done.stdout, /^stopped early: the numbers cover the samples taken$/m);
  });

  it('https:// to a server that does not speak TLS: stops on the first call, exit 2', async () => {
    const plain = createServer((_req, res) => res.end('not TLS'));
    plain.listen(0, '127.0.0.1');
    await once(plain, 'listening');
    const { port } = plain.address() as AddressInfo;
    try {
      const done = await lanewatch(
        [
          'probe',
          '--base-url',
          `https://127.0.0.1:${port}/v1`,
          '--model',
          'm',
          '--samples',
          '3',
          '--interval',
          '0',
        ],
        { env, limitMs: 30_000 },
      ).finished;
      assert.equal(done.code, 2, done.stdout + done.stderr);
      assert.match(done.stderr, /cannot reach 127\.0\.0\.1:\d+ \(tls_error\): check --base-url/);
    } finally {
      plain.closeAllConnections();
      plain.close();
    }
  });
});
