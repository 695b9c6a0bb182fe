// For tests: a stand-in OTLP/HTTP receiver that keeps every metrics request (OTLP JSON encoding) and
// flattens the points in them, so a test reads what actually left the processor.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

type Attributes = Record<string, string | number | boolean>;

/** One data point of a gauge or a sum, with what it was exported under. */
export interface SinkPoint {
  readonly metric: string;
  readonly unit: string;
  readonly description: string;
  readonly kind: 'gauge' | 'sum';
  readonly monotonic: boolean;
  readonly scope: string;
  readonly resource: Attributes;
  readonly attributes: Attributes;
  readonly value: number;
}

export interface SinkRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The decompressed body as sent. */
  readonly text: string;
  readonly points: readonly SinkPoint[];
}

export interface OtlpJsonSink {
  /** Base URL: its `/v1/metrics` is where to export. */
  readonly url: string;
  readonly requests: readonly SinkRequest[];
  /** Resolves with the first request (counting from `from`) whose points satisfy `test`. */
  waitFor(
    test: (points: readonly SinkPoint[]) => boolean,
    from?: number,
    timeoutMs?: number,
  ): Promise<SinkRequest>;
  close(): Promise<void>;
}

interface OtlpKeyValue {
  key: string;
  value?: {
    stringValue?: string;
    boolValue?: boolean;
    intValue?: number | string;
    doubleValue?: number;
  };
}
interface OtlpNumberPoint {
  attributes?: OtlpKeyValue[];
  asDouble?: number;
  asInt?: number | string;
}
interface OtlpMetric {
  name: string;
  unit?: string;
  description?: string;
  gauge?: { dataPoints?: OtlpNumberPoint[] };
  sum?: { dataPoints?: OtlpNumberPoint[]; isMonotonic?: boolean };
}
interface OtlpMetricsRequest {
  resourceMetrics?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeMetrics?: { scope?: { name?: string }; metrics?: OtlpMetric[] }[];
  }[];
}

function attributesOf(list: readonly OtlpKeyValue[] | undefined): Attributes {
  const out: Attributes = {};
  for (const { key, value } of list ?? []) {
    if (value?.stringValue !== undefined) out[key] = value.stringValue;
    else if (value?.boolValue !== undefined) out[key] = value.boolValue;
    else if (value?.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

/** Every gauge and sum point of an OTLP JSON metrics request. */
export function pointsOf(request: OtlpMetricsRequest): SinkPoint[] {
  const points: SinkPoint[] = [];
  for (const rm of request.resourceMetrics ?? []) {
    const resource = attributesOf(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? []) {
      for (const metric of sm.metrics ?? []) {
        const kind = metric.gauge ? 'gauge' : metric.sum ? 'sum' : undefined;
        if (kind === undefined) continue;
        for (const point of (metric.gauge ?? metric.sum)?.dataPoints ?? []) {
          points.push({
            metric: metric.name,
            unit: metric.unit ?? '',
            description: metric.description ?? '',
            kind,
            monotonic: metric.sum?.isMonotonic === true,
            scope: sm.scope?.name ?? '',
            resource,
            attributes: attributesOf(point.attributes),
            value: Number(point.asDouble ?? point.asInt ?? Number.NaN),
          });
        }
      }
    }
  }
  return points;
}

export async function startOtlpJsonSink(): Promise<OtlpJsonSink> {
  const requests: SinkRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      res.writeHead(415).end();
      return;
    }
    requests.push({
      path: req.url ?? '',
      headers: req.headers,
      text,
      points: pointsOf(JSON.parse(text) as OtlpMetricsRequest),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitFor(test, from = 0, timeoutMs = 10_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const found = requests.slice(from).find((r) => test(r.points));
        if (found) return found;
        if (performance.now() > deadline) {
          throw new Error(`OTLP sink: no matching request among ${requests.length} after ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
