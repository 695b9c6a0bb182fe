import assert from 'node:assert/strict';
import { connect } from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { ATTR, MILESTONE_METRIC } from '@lanewatch/instrumentation';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { AggregationType, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { histogramOf } from '../histogram/exponential-histogram.ts';
import { lognormalSamples } from '../histogram/random-samples.ts';
import { createAggregationWindows } from '../server/aggregation-windows.ts';
import { type RunningProcessor, startProcessor } from '../server/processor.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { METRICS_EXPORT_PATH } from './grpc-receiver.ts';
import { exportMetricsServiceResponse } from './otlp-schema.ts';
import {
  exportRequestJson,
  exportRequestProtobuf,
  type FixtureMetric,
} from './request-fixture.test-helper.ts';

// `startProcessor({ grpcPort })`: OTLP/gRPC MetricsService/Export into the same windows as
// POST /v1/metrics, answered as the OTLP spec says a gRPC server must answer.

const TOKEN = 'grpc-token-CANARY-7a1c';
let processor: RunningProcessor;

before(async () => {
  processor = await startProcessor({
    port: 0,
    grpcPort: 0,
    host: '127.0.0.1',
    store: createMemoryStore(),
    windows: createAggregationWindows({ windowS: 300, sliceS: 10 }),
    intervalS: 3600,
    windowS: 300,
    bearerToken: TOKEN,
  });
});

after(async () => {
  await processor.close();
});

const bearer = (token: string) => {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
};

/** A generic grpc-js client: raw bytes in, raw bytes out, nothing generated. */
function exportRaw(
  body: Uint8Array,
  metadata: Metadata,
  options: Record<string, number> = {},
): Promise<{ error: ServiceError | null; response: Buffer | undefined }> {
  const client = new Client(processor.grpcEndpoint as string, credentials.createInsecure(), options);
  return new Promise((resolve) => {
    client.makeUnaryRequest<Buffer, Buffer>(
      METRICS_EXPORT_PATH,
      (b) => b,
      (b) => b,
      Buffer.from(body),
      metadata,
      (error, response) => {
        client.close();
        resolve({ error, response });
      },
    );
  });
}

const decodeResponse = (bytes: Buffer | Uint8Array | undefined) =>
  exportMetricsServiceResponse.toObject(exportMetricsServiceResponse.decode(bytes ?? new Uint8Array()), {
    longs: Number,
  });

async function laneRecord(lane: string): Promise<LaneHealth | undefined> {
  await processor.loop.evaluateNow();
  return processor.feed.get(lane);
}

const T0 = Date.now();
function requestFor(lane: string, counts: readonly number[]): Record<string, unknown> {
  const metric = (name: string): FixtureMetric => ({
    resource: { 'service.name': 'app' },
    name,
    temporality: 'delta',
    points: counts.map((count, i) => ({
      attributes: { [ATTR.lane]: lane, [ATTR.outcome]: 'ok', [ATTR.attempt]: '1' },
      startTimeMs: T0 - 60_000 + i,
      timeMs: T0 - 1000 + i,
      histogram: histogramOf(Array<number>(count).fill(0.25)),
    })),
  });
  return exportRequestJson([metric(MILESTONE_METRIC.end), metric(MILESTONE_METRIC.first_text)]);
}

describe('OTLP/gRPC metrics receiver', () => {
  it("an app's OTLP/gRPC exporter (gzip) sends exponential histograms: the lane's record counts every call", async () => {
    const lane = 'via-grpc-exporter';
    const samples = lognormalSamples(137, 11);
    const exporter = new OTLPMetricExporter({
      url: `http://${processor.grpcEndpoint}`,
      compression: CompressionAlgorithm.GZIP,
      metadata: bearer(TOKEN),
    });
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({
      readers: [reader],
      views: [MILESTONE_METRIC.end, MILESTONE_METRIC.first_text].map((instrumentName) => ({
        instrumentName,
        aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM },
      })),
    });
    const meter = provider.getMeter('@lanewatch/instrumentation');
    const duration = meter.createHistogram(MILESTONE_METRIC.end, { unit: 's' });
    const firstText = meter.createHistogram(MILESTONE_METRIC.first_text, { unit: 's' });
    const attributes = {
      [ATTR.lane]: lane,
      [ATTR.outcome]: 'ok',
      [ATTR.sizeClass]: 's',
      [ATTR.attempt]: '1',
      [ATTR.providerName]: 'openai',
      [ATTR.requestModel]: 'gpt-4o-mini',
    };
    for (const v of samples) {
      firstText.record(v / 4, attributes);
      duration.record(v, attributes);
    }
    await provider.forceFlush();
    await provider.shutdown();
    const record = await laneRecord(lane);
    assert.ok(record, 'the lane has a record');
    assert.equal(record.samples, samples.length);
  });

  it('answers UNAUTHENTICATED without the bearer token, or with a wrong one, and takes nothing', async () => {
    const lane = 'grpc-no-token';
    const body = exportRequestProtobuf(requestFor(lane, [5]));
    for (const metadata of [new Metadata(), bearer('wrong'), bearer('')]) {
      const { error } = await exportRaw(body, metadata);
      assert.equal(error?.code, status.UNAUTHENTICATED);
      assert.equal(error?.details, 'missing or wrong bearer token');
    }
    assert.equal(await laneRecord(lane), undefined);
    const { error } = await exportRaw(body, bearer(TOKEN));
    assert.equal(error, null);
    assert.equal((await laneRecord(lane))?.samples, 5);
  });

  it('answers INVALID_ARGUMENT, not retryable, for bytes that are not an ExportMetricsServiceRequest', async () => {
    const { error } = await exportRaw(Buffer.from('garbage! not protobuf at all'), bearer(TOKEN));
    assert.equal(error?.code, status.INVALID_ARGUMENT);
    assert.match(error?.details ?? '', /not a protobuf ExportMetricsServiceRequest/);
    assert.ok(!(error?.details ?? '').includes('garbage'), 'the body is not echoed');
    // …and keeps serving.
    const ok = await exportRaw(exportRequestProtobuf(requestFor('grpc-after-garbage', [2])), bearer(TOKEN));
    assert.equal(ok.error, null);
  });

  it('answers partial success exactly as POST /v1/metrics does: the bad point rejected, the rest kept', async () => {
    const lane = 'grpc-partial';
    const json = requestFor(lane, [4, 3]) as {
      resourceMetrics: {
        scopeMetrics: { metrics: { exponentialHistogram: { dataPoints: { count: number }[] } }[] }[];
      }[];
    };
    // The second duration point says 99 calls while its buckets hold 3.
    const bad = json.resourceMetrics[0]?.scopeMetrics[0]?.metrics[0]?.exponentialHistogram.dataPoints[1];
    assert.ok(bad);
    bad.count = 99;
    const body = exportRequestProtobuf(json);
    const grpc = await exportRaw(body, bearer(TOKEN));
    assert.equal(grpc.error, null);
    const answer = decodeResponse(grpc.response);
    assert.equal(answer.partialSuccess?.rejectedDataPoints, 1);
    assert.match(answer.partialSuccess?.errorMessage, /dataPoints\[1]: .*add up to 3, but count is 99/);
    assert.equal((await laneRecord(lane))?.samples, 4);
    // The same bytes over OTLP/HTTP: the very same ExportMetricsServiceResponse bytes.
    const http = await fetch(`${processor.url}/v1/metrics`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(http.status, 200);
    assert.deepEqual(Buffer.from(await http.arrayBuffer()), grpc.response);
    // A clean request: no partial_success at all.
    const clean = await exportRaw(exportRequestProtobuf(requestFor('grpc-clean', [1])), bearer(TOKEN));
    assert.deepEqual(decodeResponse(clean.response), {});
  });

  it('refuses a call without the token on its headers, before any of its message is sent', async () => {
    const session = connect(`http://${processor.grpcEndpoint}`);
    try {
      // The stream stays open and sends nothing: an answer can only come from the headers.
      const stream = session.request({
        ':method': 'POST',
        ':path': METRICS_EXPORT_PATH,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      stream.resume();
      const answered = new Promise<Record<string, unknown>>((resolve) => stream.once('response', resolve));
      const waited = new Promise<undefined>((resolve) => setTimeout(resolve, 5000, undefined).unref());
      const headers = await Promise.race([answered, waited]);
      assert.equal(headers?.['grpc-status'], String(status.UNAUTHENTICATED), 'answered before the message');
    } finally {
      session.destroy();
    }
  });

  it('takes a message compressed with grpc-encoding: gzip, the way the collector sends it', async () => {
    const lane = 'grpc-gzip-frame';
    const compressed = gzipSync(exportRequestProtobuf(requestFor(lane, [6])));
    // One length-prefixed message with the compressed flag set (gRPC over HTTP/2, "Length-Prefixed-Message").
    const frame = Buffer.alloc(5 + compressed.length);
    frame.writeUInt8(1, 0);
    frame.writeUInt32BE(compressed.length, 1);
    compressed.copy(frame, 5);
    const session = connect(`http://${processor.grpcEndpoint}`);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': METRICS_EXPORT_PATH,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-encoding': 'gzip',
        authorization: `Bearer ${TOKEN}`,
      });
      const trailers = new Promise<Record<string, unknown>>((resolve) => stream.once('trailers', resolve));
      stream.end(frame);
      stream.resume();
      const { 'grpc-status': code, 'grpc-message': message } = await trailers;
      assert.equal(code, String(status.OK), String(message));
    } finally {
      session.close();
    }
    assert.equal((await laneRecord(lane))?.samples, 6);
  });

  it('refuses a message over the size limit after decompression (a gzip bomb) with RESOURCE_EXHAUSTED', async () => {
    const small = await startProcessor({
      port: 0,
      grpcPort: 0,
      host: '127.0.0.1',
      store: createMemoryStore(),
      windows: createAggregationWindows({ windowS: 300, sliceS: 10 }),
      intervalS: 3600,
      windowS: 300,
      maxBodyBytes: 64 * 1024,
    });
    try {
      const client = new Client(small.grpcEndpoint as string, credentials.createInsecure(), {
        'grpc.default_compression_algorithm': 2, // gzip
      });
      const error = await new Promise<ServiceError | null>((resolve) => {
        client.makeUnaryRequest<Buffer, Buffer>(
          METRICS_EXPORT_PATH,
          (b) => b,
          (b) => b,
          Buffer.alloc(1024 * 1024), // 1 MiB of zeros: ~1 KiB on the wire
          new Metadata(),
          (e) => {
            client.close();
            resolve(e);
          },
        );
      });
      assert.equal(error?.code, status.RESOURCE_EXHAUSTED);
    } finally {
      await small.close();
    }
  });
});
