import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A local OTLP/HTTP JSON receiver that keeps every request it gets, by signal path. */
export interface OtlpSink {
  readonly url: string;
  readonly received: Array<{ path: string; body: string }>;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const received: Array<{ path: string; body: string }> = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      let raw = Buffer.concat(parts);
      if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
      received.push({ path: req.url ?? '', body: raw.toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
