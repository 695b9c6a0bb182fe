import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerTokenCheck } from './bearer-token.ts';
import { OtlpDecodeError } from './decode-error.ts';
import { decodeJsonRequest } from './decode-json.ts';
import { decodeProtobufRequest } from './decode-protobuf.ts';
import { type EncodedResponse, type Encoding, failureResponse, successResponse } from './export-response.ts';
import type { MetricsBatch } from './histogram-point.ts';
import { ingestBatch } from './ingest-batch.ts';
import { BodyError, readBody } from './read-body.ts';
import type { MetricFilter } from './read-points.ts';

/** What the consumer of a batch (the lane windows) did not take, and why. */
export interface IngestResult {
  readonly rejected: number;
  readonly errors: readonly string[];
}

export interface MetricsHandlerOptions {
  /** Takes each decoded batch; called synchronously, once per request with at least one point read. */
  readonly ingest: (batch: MetricsBatch) => IngestResult;
  /** Metrics worth reading; the others are accepted and skipped without building their points. */
  readonly accepts?: MetricFilter;
  /** Limit for the body on the wire and after decompression (default 16 MiB). */
  readonly maxBodyBytes?: number;
  /** When set, requests must carry `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
  /** Told about unexpected failures (answered with 500); never about a client's bad request. */
  readonly onError?: (error: unknown) => void;
  /** Told, for every request decoded, how many of its points were taken and how many rejected. */
  readonly onPoints?: (accepted: number, rejected: number) => void;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** OTLP/HTTP content types (OTLP spec, "Binary Protobuf Encoding" and "JSON Protobuf Encoding"). */
function encodingOf(contentType: string | undefined): Encoding | undefined {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (mediaType === 'application/x-protobuf' || mediaType === 'application/protobuf') return 'protobuf';
  if (mediaType === 'application/json') return 'json';
  return undefined;
}

function send(
  res: ServerResponse,
  status: number,
  response: EncodedResponse,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.statusCode = status;
  res.setHeader('content-type', response.contentType);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(response.body);
}

/**
 * The `POST /v1/metrics` endpoint of an OTLP/HTTP receiver, for a node:http server to route to.
 * Protobuf and JSON, gzip/deflate/zstd; 400 for a body that cannot be decoded, 413 over the size
 * limit, 415 for other content types or encodings, 401 without the bearer token, and 200 with
 * `partialSuccess` when some points were rejected. The returned promise never rejects.
 */
export function createMetricsHandler(options: MetricsHandlerOptions): MetricsHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new Error(`maxBodyBytes must be a positive whole number of bytes, got ${maxBodyBytes}`);
  }
  const authorized = options.bearerToken === undefined ? undefined : bearerTokenCheck(options.bearerToken);

  return async (req, res) => {
    const encoding = encodingOf(req.headers['content-type']);
    const replyAs: Encoding = encoding ?? 'json';
    // A reply sent before the body was read closes the connection rather than reading the rest.
    const early = { connection: 'close' };
    try {
      if (req.method !== 'POST') {
        send(res, 405, failureResponse(replyAs, 405, 'use POST for /v1/metrics'), {
          ...early,
          allow: 'POST',
        });
        return;
      }
      if (authorized !== undefined && !authorized(req.headers.authorization)) {
        send(res, 401, failureResponse(replyAs, 401, 'missing or wrong bearer token'), {
          ...early,
          'www-authenticate': 'Bearer',
        });
        return;
      }
      if (encoding === undefined) {
        const given = JSON.stringify(req.headers['content-type'] ?? '');
        const message = `Content-Type ${given} is not supported; send application/x-protobuf or application/json`;
        send(res, 415, failureResponse(replyAs, 415, message), early);
        return;
      }
      const body = await readBody(req, maxBodyBytes);
      const batch =
        encoding === 'protobuf'
          ? decodeProtobufRequest(body, options.accepts)
          : decodeJsonRequest(body.toString('utf8'), options.accepts);
      const outcome = ingestBatch(batch, options);
      send(res, 200, successResponse(encoding, outcome.rejected, outcome.errorMessage));
    } catch (error) {
      if (error instanceof BodyError) {
        send(res, error.status, failureResponse(replyAs, error.status, error.message), early);
      } else if (error instanceof OtlpDecodeError) {
        send(res, 400, failureResponse(replyAs, 400, error.message));
      } else {
        try {
          options.onError?.(error);
        } catch {
          // A faulty error hook must not take the receiver down either.
        }
        send(res, 500, failureResponse(replyAs, 500, 'internal error while ingesting the batch'));
      }
    }
  };
}
