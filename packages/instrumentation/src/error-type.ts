/**
 * A transport failure as a low-cardinality class (DESIGN §2). Built from `code` and `name` only:
 * an error's message can carry a URL, a header or a fragment of the body, so it is never read.
 */
export interface TransportFailure {
  /** The caller aborted: not an error of the lane. */
  readonly cancelled: boolean;
  readonly type: string;
}

const CODE_TYPES: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'connection_reset',
  UND_ERR_CLOSED: 'connection_reset',
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns_error',
  EAI_AGAIN: 'dns_error',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'protocol_error',
  HPE_INVALID_CHUNK_SIZE: 'protocol_error',
  UND_ERR_INFO: 'protocol_error',
  UND_ERR_RESPONSE_EXCEEDED_MAX_SIZE: 'response_too_large',
  // HTTP/2 (Node's http2 errors, which undici hands on): the peer reset the call's stream
  // (RST_STREAM with an error code, REFUSED_STREAM too), or closed the whole connection with an
  // error (GOAWAY), or the session was gone before the stream could start.
  ERR_HTTP2_STREAM_ERROR: 'connection_reset',
  ERR_HTTP2_SESSION_ERROR: 'connection_reset',
  ERR_HTTP2_GOAWAY_SESSION: 'connection_reset',
  ERR_HTTP2_STREAM_CANCEL: 'connection_reset',
  ERR_HTTP2_INVALID_SESSION: 'connection_reset',
  // OpenSSL's certificate verification results (Node's `ERR_SSL_*` and `ERR_TLS_*` codes: below).
  CERT_HAS_EXPIRED: 'tls_error',
  CERT_NOT_YET_VALID: 'tls_error',
  CERT_REVOKED: 'tls_error',
  CERT_UNTRUSTED: 'tls_error',
  CERT_SIGNATURE_FAILURE: 'tls_error',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'tls_error',
  SELF_SIGNED_CERT_IN_CHAIN: 'tls_error',
  UNABLE_TO_GET_ISSUER_CERT: 'tls_error',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'tls_error',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'tls_error',
  HOSTNAME_MISMATCH: 'tls_error',
  // A socket-level protocol error: what a TLS handshake with a peer that does not speak TLS gave
  // before Node named OpenSSL's reasons.
  EPROTO: 'tls_error',
};

/**
 * The type of a code not in `CODE_TYPES`: Node names every OpenSSL and TLS failure with the first
 * two prefixes; any other HTTP/2 failure (a frame or header nghttp2 rejects) is the protocol's.
 */
function typeByPrefix(code: string): string | undefined {
  if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'tls_error';
  return code.startsWith('ERR_HTTP2_') ? 'protocol_error' : undefined;
}

export function classifyTransportError(error: unknown): TransportFailure {
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    name?: unknown;
    cause?: unknown;
  };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const name = typeof e.name === 'string' ? e.name : undefined;
  if (code === 'UND_ERR_ABORTED' || name === 'AbortError') return { cancelled: true, type: 'cancelled' };
  if (name === 'TimeoutError') return { cancelled: false, type: 'timeout' };
  if (code !== undefined) {
    const type = Object.hasOwn(CODE_TYPES, code) ? CODE_TYPES[code] : typeByPrefix(code);
    if (type !== undefined) return { cancelled: false, type };
  }
  if (e.cause !== undefined && e.cause !== error) {
    const inner = classifyTransportError(e.cause);
    if (inner.type !== 'other') return inner;
  }
  // undici's "other side closed" / "terminated" carry no code of their own.
  if (name === 'SocketError') return { cancelled: false, type: 'connection_reset' };
  return { cancelled: false, type: 'other' };
}
