// A stand-in OTLP/HTTP receiver that keeps every request it gets, decompressed: the tests read what
// actually left the collector (for the processor, a traces or a logs backend) byte for byte.
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface OtlpRequest {
  /** /v1/metrics, /v1/traces or /v1/logs */
  path: string;
  contentType: string;
  /** The Authorization header, if any. */
  authorization: string | undefined;
  /** The decompressed body: OTLP protobuf or JSON as the sender chose. */
  body: Buffer;
}

export interface OtlpSink {
  /** Base URL, as an OTLP/HTTP exporter's `endpoint`. */
  readonly url: string;
  readonly requests: readonly OtlpRequest[];
  /** Resolves with the requests to `path` once `count` have arrived; rejects after `timeoutMs`. */
  waitFor(path: string, count?: number, timeoutMs?: number): Promise<OtlpRequest[]>;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const requests: OtlpRequest[] = [];
  const server = createServer((request, response) => {
    readBody(request).then(
      (body) => {
        const contentType = request.headers['content-type'] ?? '';
        requests.push({
          path: request.url ?? '',
          contentType,
          authorization: request.headers.authorization,
          body,
        });
        // An empty Export*ServiceResponse: zero bytes in protobuf, {} in JSON.
        const json = contentType.includes('json');
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        response.end(json ? '{}' : '');
      },
      () => {
        response.writeHead(400).end();
      },
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitFor(path, count = 1, timeoutMs = 30_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const matching = requests.filter((request) => request.path === path);
        if (matching.length >= count) return matching;
        if (performance.now() > deadline) {
          throw new Error(
            `OTLP sink: ${matching.length} of ${count} requests to ${path} after ${timeoutMs} ms`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
