import protojson from 'protobufjs/ext/protojson.js';
import { exportMetricsServiceResponse, rpcStatus } from './otlp-schema.ts';

// OTLP/HTTP responses (OTLP spec, "OTLP/HTTP Response"): the body is encoded like the request —
// binary protobuf for `application/x-protobuf`, ProtoJSON for `application/json`. Success carries an
// ExportMetricsServiceResponse, with `partial_success` set only when some points were rejected;
// failure carries a google.rpc.Status whose message says what was wrong.

export type Encoding = 'protobuf' | 'json';

export interface EncodedResponse {
  readonly contentType: string;
  readonly body: Uint8Array | string;
}

const CONTENT_TYPE: Readonly<Record<Encoding, string>> = {
  protobuf: 'application/x-protobuf',
  json: 'application/json',
};

export function successResponse(encoding: Encoding, rejected: number, errorMessage: string): EncodedResponse {
  const message =
    rejected > 0 || errorMessage !== ''
      ? { partialSuccess: { rejectedDataPoints: rejected, errorMessage } }
      : {};
  return encode(encoding, exportMetricsServiceResponse, message);
}

/** gRPC status codes used in the Status body for each HTTP status this receiver answers with. */
const RPC_CODE: Readonly<Record<number, number>> = {
  400: 3, // INVALID_ARGUMENT
  401: 16, // UNAUTHENTICATED
  405: 12, // UNIMPLEMENTED
  413: 8, // RESOURCE_EXHAUSTED
  415: 3, // INVALID_ARGUMENT
  500: 13, // INTERNAL
};

export function failureResponse(encoding: Encoding, httpStatus: number, message: string): EncodedResponse {
  return encode(encoding, rpcStatus, { code: RPC_CODE[httpStatus] ?? 2, message });
}

function encode(encoding: Encoding, type: typeof rpcStatus, message: object): EncodedResponse {
  if (encoding === 'json') {
    return {
      contentType: CONTENT_TYPE.json,
      body: JSON.stringify(protojson.toJson(type, type.fromObject(message))),
    };
  }
  return { contentType: CONTENT_TYPE.protobuf, body: type.encode(type.fromObject(message)).finish() };
}
