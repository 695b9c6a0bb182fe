import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { describe, it } from 'node:test';
import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { ATTR, MILESTONE_METRIC } from '@lanewatch/instrumentation';
import { histogramOf } from '../histogram/exponential-histogram.ts';
import { METRICS_EXPORT_PATH } from '../otlp/grpc-receiver.ts';
import { exportRequestJson, exportRequestProtobuf } from '../otlp/request-fixture.test-helper.ts';
import { freePort, waitUntil } from '../wait.test-helper.ts';
import { serve } from './serve-in-process.test-helper.ts';
import { serveHelp } from './serve-options.ts';

// `lanewatch serve --grpc-port` / LANEWATCH_GRPC_PORT: OTLP/gRPC in beside OTLP/HTTP, as a user
// runs it — what it prints, what it takes, and that SIGTERM closes it.

const TOKEN = 'tok-CANARY-grpc-3e0f';

function durations(lane: string, calls: number): Uint8Array {
  const now = Date.now();
  return exportRequestProtobuf(
    exportRequestJson([
      {
        resource: { 'service.name': 'app' },
        name: MILESTONE_METRIC.end,
        temporality: 'delta',
        points: [
          {
            attributes: { [ATTR.lane]: lane, [ATTR.outcome]: 'ok', [ATTR.attempt]: '1' },
            startTimeMs: now - 5000,
            timeMs: now - 1000,
            histogram: histogramOf(Array<number>(calls).fill(0.5)),
          },
        ],
      },
    ]),
  );
}

/** One unary Export call; the client is left open when `keep` is set (a connection held across stop). */
function exportCall(endpoint: string, body: Uint8Array, token?: string, keep?: { client?: Client }) {
  const client = new Client(endpoint, credentials.createInsecure());
  const metadata = new Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return new Promise<ServiceError | null>((resolve) => {
    client.makeUnaryRequest<Buffer, Buffer>(
      METRICS_EXPORT_PATH,
      (b) => b,
      (b) => b,
      Buffer.from(body),
      metadata,
      (error) => {
        if (keep) keep.client = client;
        else client.close();
        resolve(error);
      },
    );
  });
}

async function refused(port: number): Promise<boolean> {
  const socket = createConnection(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    return false;
  } catch (error) {
    return (error as { code?: string }).code === 'ECONNREFUSED';
  } finally {
    socket.destroy();
  }
}

describe('lanewatch serve --grpc-port', { concurrency: true }, () => {
  it('receives OTLP/gRPC with the token, serves the lane, and SIGTERM closes the gRPC port too', async () => {
    const grpcPort = await freePort();
    const run = serve(['--grpc-port', String(grpcPort), '--interval', '0.2', '--token', TOKEN]);
    const held: { client?: Client } = {};
    try {
      const url = await run.url();
      assert.match(run.out.join(''), new RegExp(`; OTLP/gRPC on 127\\.0\\.0\\.1:${grpcPort}; `));
      const endpoint = `127.0.0.1:${grpcPort}`;
      const lane = 'cli-grpc';
      const denied = await exportCall(endpoint, durations(lane, 7));
      assert.equal(denied?.code, status.UNAUTHENTICATED);
      assert.equal(await exportCall(endpoint, durations(lane, 7), TOKEN, held), null);
      let samples: unknown;
      await waitUntil('the lane record', async () => {
        const response = await fetch(`${url}/v1/lanes/${lane}`);
        samples = response.ok ? ((await response.json()) as { samples: number }).samples : undefined;
        return samples === 7;
      });
      assert.equal(samples, 7);
    } finally {
      // A client still holding its connection does not hold the shutdown up.
      const started = Date.now();
      assert.equal(await run.stop(), 0, run.err.join(''));
      assert.ok(Date.now() - started < 5000, `stop took ${Date.now() - started} ms`);
      held.client?.close();
    }
    assert.ok(await refused(grpcPort), 'the gRPC port is closed after SIGTERM');
    assert.ok(!`${run.out.join('')}${run.err.join('')}`.includes('CANARY'), 'the token is never printed');
  });

  it('LANEWATCH_GRPC_PORT sets it too; without either there is no gRPC listener', async () => {
    const grpcPort = await freePort();
    const withVariable = serve([], { LANEWATCH_GRPC_PORT: String(grpcPort) });
    try {
      await withVariable.url();
      assert.match(withVariable.out.join(''), new RegExp(`OTLP/gRPC on 127\\.0\\.0\\.1:${grpcPort}`));
      assert.equal(await exportCall(`127.0.0.1:${grpcPort}`, durations('via-variable', 1)), null);
    } finally {
      assert.equal(await withVariable.stop(), 0);
    }
    const without = serve([]);
    try {
      await without.url();
      assert.doesNotMatch(without.out.join(''), /gRPC/);
    } finally {
      assert.equal(await without.stop(), 0);
    }
  });

  it('a bad --grpc-port, or the same port as --port, exits 2 saying what to change', async () => {
    const bad = serve(['--grpc-port', 'grpc']);
    assert.equal(await bad.code, 2);
    assert.equal(
      bad.err.join(''),
      'lanewatch serve: --grpc-port must be a port number from 0 to 65535, got "grpc"\n',
    );
    const same = serve(['--port', '4399', '--grpc-port', '4399']);
    assert.equal(await same.code, 2);
    assert.equal(
      same.err.join(''),
      'lanewatch serve: --grpc-port (4399) must differ from --port (4399): OTLP/gRPC needs a port of its own\n',
    );
    const sameAsDefault = serve([], { LANEWATCH_PORT: '', LANEWATCH_GRPC_PORT: '4320' });
    assert.equal(await sameAsDefault.code, 2);
    assert.equal(
      sameAsDefault.err.join(''),
      'lanewatch serve: LANEWATCH_GRPC_PORT (4320) must differ from the default --port (4320): OTLP/gRPC needs a port of its own\n',
    );
  });

  it('--help lists --grpc-port and LANEWATCH_GRPC_PORT, off by default', () => {
    const line = serveHelp()
      .split('\n')
      .find((l) => l.trimStart().startsWith('--grpc-port '));
    assert.ok(line, serveHelp());
    assert.match(line, /LANEWATCH_GRPC_PORT +OTLP\/gRPC port/);
    assert.match(line, /no gRPC listener/);
  });
});
