import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createConnection, createServer } from 'node:net';
import { describe, it } from 'node:test';
import { freePort } from '../wait.test-helper.ts';
import { listenFailure } from './listen-address.ts';
import { serve } from './serve-in-process.test-helper.ts';

// `lanewatch serve` when it cannot listen where it is told to: exit 2 and one line saying what to
// change, never a stack trace, never a value that may hold a secret.

async function failure(args: readonly string[], env: Record<string, string> = {}) {
  const run = serve(args, env);
  // One that listens after all is stopped, and fails the test on its exit code 0, not on a timeout.
  const bound = setTimeout(() => void run.stop(), 10_000);
  const code = await run.code.catch((error: Error) => `threw ${error.stack}`);
  clearTimeout(bound);
  return { code, err: run.err.join(''), out: run.out.join('') };
}

describe('lanewatch serve: where it listens', { concurrency: true }, () => {
  it('a port in use exits 2, naming the flag or variable to change', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as { port: number };
    try {
      const flag = await failure(['--port', String(port)]);
      assert.equal(flag.code, 2, flag.err);
      assert.equal(
        flag.err,
        `lanewatch serve: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); choose another --port, or 0 for any free port\n`,
      );
      assert.equal(flag.out, '');
      const variable = await failure([], { LANEWATCH_PORT: String(port) });
      assert.equal(variable.code, 2, variable.err);
      assert.equal(
        variable.err,
        `lanewatch serve: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); choose another LANEWATCH_PORT, or 0 for any free port\n`,
      );
    } finally {
      taken.close();
    }
  });

  it('an OTLP/gRPC port in use exits 2, naming --grpc-port or LANEWATCH_GRPC_PORT, and leaves no port open', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as { port: number };
    try {
      for (const [args, env, setting] of [
        [['--grpc-port', String(port)], {}, '--grpc-port'],
        [[], { LANEWATCH_GRPC_PORT: String(port) }, 'LANEWATCH_GRPC_PORT'],
      ] as const) {
        const run = await failure(args, env);
        assert.equal(run.code, 2, run.err);
        assert.equal(
          run.err,
          `lanewatch serve: cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); choose another ${setting}, or 0 for any free port\n`,
        );
        assert.equal(run.out, '');
      }
      // The HTTP port in use: the gRPC port, already open, is closed again before the exit.
      const grpcPort = await freePort();
      const http = await failure(['--port', String(port), '--grpc-port', String(grpcPort)]);
      assert.equal(http.code, 2, http.err);
      assert.match(http.err, /the port is in use \(EADDRINUSE\); choose another --port,/);
      const probe = createConnection(grpcPort, '127.0.0.1');
      const [error] = await once(probe, 'error');
      assert.equal((error as { code?: string }).code, 'ECONNREFUSED', 'the gRPC port was left open');
    } finally {
      taken.close();
    }
  });

  it('an address this machine does not have exits 2, saying to set --host to one it has', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): documentation only, on no interface.
    const run = await failure(['--host', '192.0.2.1', '--port', '4399']);
    assert.equal(run.code, 2, run.err);
    assert.equal(
      run.err,
      'lanewatch serve: cannot listen on 192.0.2.1:4399: no interface of this machine has that address (EADDRNOTAVAIL); set --host to one of its addresses, 127.0.0.1, or 0.0.0.0 for every interface\n',
    );
  });

  it('a host name that does not resolve exits 2 without echoing it', async () => {
    // .invalid never resolves (RFC 2606); without a resolver the lookup fails with EAI_AGAIN instead.
    const run = await failure([], { LANEWATCH_HOST: 'canary-7f3e.invalid' });
    assert.equal(run.code, 2, run.err);
    assert.match(
      run.err,
      /^lanewatch serve: cannot listen: LANEWATCH_HOST is a host name that does not resolve \((ENOTFOUND|EAI_AGAIN)\); set it to an address of this machine, 127\.0\.0\.1, or 0\.0\.0\.0 for every interface\n$/,
    );
    assert.ok(!run.err.includes('canary'), run.err);
  });

  it('a --host that is not a host (a URL with a password, say) exits 2 before listening, without echoing it', async () => {
    const SECRET = 'CANARY-51d0';
    for (const host of [`redis://u:${SECRET}@h`, `[::1]`, `sk ${SECRET}`, '']) {
      const run = await failure(['--host', host]);
      assert.equal(run.code, 2, run.err);
      assert.match(
        run.err,
        /^lanewatch serve: --host must be an IP address or a host name, like 127\.0\.0\.1, ::1, 0\.0\.0\.0 or localhost, got (a URL|a value that is not one)\n$/,
      );
      assert.ok(!run.err.includes(SECRET), run.err);
    }
  });

  it('a port it may not use (EACCES) says to choose one of 1024 or above', () => {
    // Not reproducible as root, who may listen on any port: the error as the system reports it.
    const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), {
      code: 'EACCES',
      syscall: 'listen',
      address: '0.0.0.0',
      port: 80,
    });
    assert.equal(
      listenFailure(denied, { port: 80, hostSource: undefined, portSource: 'LANEWATCH_PORT' })?.message,
      'cannot listen on 0.0.0.0:80: not permitted (EACCES); choose a LANEWATCH_PORT of 1024 or above, or 0 for any free port',
    );
    // An error that is not a listen failure is not turned into one.
    const unreadable = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open' });
    assert.equal(
      listenFailure(unreadable, { port: 80, hostSource: undefined, portSource: undefined }),
      undefined,
    );
  });
});
