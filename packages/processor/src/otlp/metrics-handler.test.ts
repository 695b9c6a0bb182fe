import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { histogramOf } from '../histogram/exponential-histogram.ts';
import type { MetricsBatch } from './histogram-point.ts';
import { createMetricsHandler, type IngestResult } from './metrics-handler.ts';
import { exportMetricsServiceResponse, rpcStatus } from './otlp-schema.ts';
import { exportRequestJson, exportRequestProtobuf } from './request-fixture.test-helper.ts';

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);
const request = exportRequestJson([
  {
    resource: { 'service.name': 'app' },
    name: 'lanewatch.time_to_first_text',
    temporality: 'delta',
    points: [
      {
        attributes: { 'lanewatch.lane': 'fast' },
        startTimeMs: T0,
        timeMs: T0 + 1,
        histogram: histogramOf([0.1, 0.2]),
      },
    ],
  },
]);

let batches: MetricsBatch[] = [];
let ingest: (b: MetricsBatch) => IngestResult = () => ({ rejected: 0, errors: [] });
const unexpected: unknown[] = [];
let server: Server;
let url: string;

before(async () => {
  const handler = createMetricsHandler({
    ingest: (b) => {
      batches.push(b);
      return ingest(b);
    },
    maxBodyBytes: 64 * 1024,
    bearerToken: 'sesame',
    onError: (e) => unexpected.push(e),
  });
  server = createServer((req, res) => void handler(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`;
});

after(async () => {
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  batches = [];
  ingest = () => ({ rejected: 0, errors: [] });
});

const auth = { authorization: 'Bearer sesame' };

async function post(body: string | Uint8Array, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', body, headers: { ...auth, ...headers } });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: new Uint8Array(await res.arrayBuffer()),
  };
}

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('POST /v1/metrics', () => {
  it('takes gzip protobuf and answers a protobuf ExportMetricsServiceResponse without partialSuccess', async () => {
    const body = gzipSync(exportRequestProtobuf(request));
    const res = await post(body, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    assert.equal(res.status, 200);
    assert.equal(res.type, 'application/x-protobuf');
    const decoded = exportMetricsServiceResponse.toObject(exportMetricsServiceResponse.decode(res.body));
    assert.deepEqual(decoded, {});
    assert.equal(batches[0]?.points.length, 1);
  });

  it('takes JSON and reports rejected points in partialSuccess, keeping the good ones', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the test reshapes an OTLP JSON tree
    const json = structuredClone(request) as any;
    const points = json.resourceMetrics[0].scopeMetrics[0].metrics[0].exponentialHistogram.dataPoints;
    points.push({ ...points[0], count: 'many' });
    ingest = () => ({ rejected: 1, errors: ['lane cap reached'] });
    const res = await post(JSON.stringify(json), { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.status, 200);
    const answer = JSON.parse(text(res.body));
    assert.equal(answer.partialSuccess.rejectedDataPoints, '2');
    assert.match(answer.partialSuccess.errorMessage, /dataPoints\[1]: .*count/);
    assert.match(answer.partialSuccess.errorMessage, /lane cap reached/);
    assert.equal(batches[0]?.points.length, 1);
  });

  it('answers 400 with a Status saying what was wrong', async () => {
    const json = await post('{"resourceMetrics": [', { 'content-type': 'application/json' });
    assert.equal(json.status, 400);
    assert.match(JSON.parse(text(json.body)).message, /not JSON/);
    const proto = await post('garbage!', { 'content-type': 'application/x-protobuf' });
    assert.equal(proto.status, 400);
    const status = rpcStatus.decode(proto.body) as unknown as { code: number; message: string };
    assert.equal(status.code, 3);
    assert.match(status.message, /not a protobuf ExportMetricsServiceRequest/);
    const gzip = await post('not gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(gzip.status, 400);
    assert.match(JSON.parse(text(gzip.body)).message, /not valid gzip/);
  });

  it('answers 415 for other content types and encodings', async () => {
    const type = await post('x', { 'content-type': 'text/plain' });
    assert.equal(type.status, 415);
    assert.match(JSON.parse(text(type.body)).message, /application\/x-protobuf or application\/json/);
    const enc = await post('x', { 'content-type': 'application/json', 'content-encoding': 'br' });
    assert.equal(enc.status, 415);
  });

  it('answers 413 above the size limit, on the wire and after decompression (gzip bomb)', async () => {
    const big = await post(Buffer.alloc(100 * 1024), { 'content-type': 'application/x-protobuf' });
    assert.equal(big.status, 413);
    // 64 MiB of zeros gzip to ~64 KiB… less than the limit on the wire, far more once inflated.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
    assert.ok(bomb.length < 64 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    const res = await post(bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    assert.equal(res.status, 413);
    assert.match(rpcStatus.decode(res.body).toJSON().message, /decompressed request body exceeds/);
    assert.ok(process.memoryUsage().arrayBuffers - before < 32 * 1024 * 1024, 'never inflated the bomb');
  });

  it('answers 413 for a chunked body that grows past the limit', async () => {
    const chunks = (async function* () {
      for (let i = 0; i < 20; i++) yield new Uint8Array(16 * 1024);
    })();
    const res = await fetch(url, {
      method: 'POST',
      body: ReadableStream.from(chunks),
      duplex: 'half',
      headers: { ...auth, 'content-type': 'application/x-protobuf' },
    } as RequestInit).catch((e: Error) => e);
    // The server may close the connection before the client finished sending: either is a refusal.
    if (!(res instanceof Error)) assert.equal(res.status, 413);
  });

  it('answers 401 without the bearer token', async () => {
    const none = await fetch(url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    const wrong = await post('{}', { 'content-type': 'application/json', authorization: 'Bearer open' });
    assert.equal(wrong.status, 401);
  });

  it('answers 500 when ingestion fails unexpectedly, and keeps serving', async () => {
    ingest = () => {
      throw new Error('boom');
    };
    const res = await post(JSON.stringify(request), { 'content-type': 'application/json' });
    assert.equal(res.status, 500);
    assert.equal((unexpected.at(-1) as Error).message, 'boom');
    ingest = () => ({ rejected: 0, errors: [] });
    const again = await post(JSON.stringify(request), { 'content-type': 'application/json' });
    assert.equal(again.status, 200);
  });

  it('answers an empty request with plain success', async () => {
    const res = await post('{}', { 'content-type': 'application/json' });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(text(res.body)), {});
  });
});

describe('a client that goes away mid-body', () => {
  it('costs nothing and leaves the receiver serving', async () => {
    const { request: httpRequest } = await import('node:http');
    const req = httpRequest(url, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-protobuf', 'content-length': '1000' },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(100));
    await new Promise((resolve) => setTimeout(resolve, 50));
    req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const res = await post(JSON.stringify(request), { 'content-type': 'application/json' });
    assert.equal(res.status, 200);
  });
});
