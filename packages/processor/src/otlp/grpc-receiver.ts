import { once } from 'node:events';
import { createServer, type Server as NetServer } from 'node:net';
import {
  type handleUnaryCall,
  Server,
  ServerCredentials,
  type ServerErrorResponse,
  ServerInterceptingCall,
  type ServerInterceptor,
  type ServiceDefinition,
  status,
} from '@grpc/grpc-js';
import { bearerTokenCheck } from './bearer-token.ts';
import { OtlpDecodeError } from './decode-error.ts';
import { decodeProtobufRequest } from './decode-protobuf.ts';
import { successResponse } from './export-response.ts';
import { ingestBatch } from './ingest-batch.ts';
import { DEFAULT_MAX_BODY_BYTES, type MetricsHandlerOptions } from './metrics-handler.ts';

// The OTLP/gRPC receiver (OTLP spec, "OTLP/gRPC"): the unary MetricsService/Export, the transport the
// collector's load-balancing exporter speaks. The request's bytes go to the same protobuf decoder and
// the same ingest step as OTLP/HTTP's `application/x-protobuf`: same validation, same partial success.
//
// Status codes, as the spec asks of a server: INVALID_ARGUMENT for a request that cannot be decoded
// (the sender must not retry it), UNAUTHENTICATED without the bearer token, INTERNAL for a failure of
// ours (neither retryable, like HTTP 400/401/500). The HTTP path never answers 429/503, so neither
// does this one with RESOURCE_EXHAUSTED-with-RetryInfo or UNAVAILABLE; grpc-js itself answers
// RESOURCE_EXHAUSTED (no RetryInfo: not retried) for a message over the size limit, before or after
// gzip/deflate decompression, which it does itself from `grpc-encoding`.

/** The method's full path; the collector's exporter and every OTLP SDK call it. */
export const METRICS_EXPORT_PATH = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';

const identity = (bytes: Buffer): Buffer => bytes;

/** The service with raw bytes in and out: decoding is ours, with the schema the HTTP path uses. */
const METRICS_SERVICE: ServiceDefinition = {
  Export: {
    path: METRICS_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
    originalName: 'export',
  },
};

/** How long close() lets calls in flight finish before cutting them off. */
export const GRPC_SHUTDOWN_GRACE_MS = 2000;

export interface GrpcReceiver {
  /** Listens on `port` (0: any free port) at `host`; resolves with the port. Rejects with the system's error. */
  listen(port: number, host: string): Promise<number>;
  /** Stops listening, lets calls in flight finish for at most `graceMs`, then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Refuses a call without the bearer token from its metadata, before its message is read: grpc-js
 * reads a unary call's message only once the handler has the metadata, so a sender without the
 * token never makes the server take in (and decompress) up to `maxBodyBytes` — as `POST /v1/metrics`
 * answers 401 before reading the body.
 */
function tokenRequired(authorized: (authorization: string) => boolean): ServerInterceptor {
  return (_method, call) =>
    new ServerInterceptingCall(call, {
      start(next) {
        next({
          onReceiveMetadata(metadata, pass) {
            const [authorization] = metadata.get('authorization');
            if (typeof authorization === 'string' && authorized(authorization)) pass(metadata);
            else call.sendStatus({ code: status.UNAUTHENTICATED, details: 'missing or wrong bearer token' });
          },
        });
      },
    });
}

function fault(code: status, details: string): ServerErrorResponse {
  return Object.assign(new Error(details), { code, details });
}

/**
 * An OTLP/gRPC metrics receiver: the same options as `createMetricsHandler` (`maxBodyBytes` bounds
 * the message before and after decompression; `bearerToken` is checked against the `authorization`
 * metadata, `Bearer <token>`).
 */
export function createGrpcReceiver(options: MetricsHandlerOptions): GrpcReceiver {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new Error(`maxBodyBytes must be a positive whole number of bytes, got ${maxBodyBytes}`);
  }
  const authorized = options.bearerToken === undefined ? undefined : bearerTokenCheck(options.bearerToken);

  const exportCall: handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    try {
      if (authorized !== undefined) {
        const [authorization] = call.metadata.get('authorization');
        if (typeof authorization !== 'string' || !authorized(authorization)) {
          callback(fault(status.UNAUTHENTICATED, 'missing or wrong bearer token'));
          return;
        }
      }
      const batch = decodeProtobufRequest(call.request, options.accepts);
      const outcome = ingestBatch(batch, options);
      const { body } = successResponse('protobuf', outcome.rejected, outcome.errorMessage);
      callback(null, Buffer.from(body));
    } catch (error) {
      if (error instanceof OtlpDecodeError) {
        callback(fault(status.INVALID_ARGUMENT, error.message));
        return;
      }
      try {
        options.onError?.(error);
      } catch {
        // A faulty error hook must not take the receiver down either.
      }
      callback(fault(status.INTERNAL, 'internal error while ingesting the batch'));
    }
  };

  const server = new Server({
    'grpc.max_receive_message_length': maxBodyBytes,
    interceptors: authorized === undefined ? [] : [tokenRequired(authorized)],
  });
  server.addService(METRICS_SERVICE, { Export: exportCall });
  // Our own socket listener hands each connection to grpc-js: listening fails with Node's errors
  // (code, syscall, address), exactly as the HTTP port's do, and resolves host names the same way.
  const connections = server.createConnectionInjector(ServerCredentials.createInsecure());
  let listener: NetServer | undefined;
  let closing: Promise<void> | undefined;

  return {
    async listen(port, host) {
      if (listener !== undefined) throw new Error('the OTLP/gRPC receiver is already listening');
      const net = createServer((socket) => connections.injectConnection(socket));
      listener = net;
      net.listen(port, host);
      await once(net, 'listening');
      const address = net.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      return address.port;
    },
    close(graceMs = GRPC_SHUTDOWN_GRACE_MS) {
      closing ??= new Promise<void>((resolve) => {
        listener?.close();
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return closing;
    },
  };
}
