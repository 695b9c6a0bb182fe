import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { classifyTransportError } from './error-type.ts';

const coded = (code: string, extra: object = {}) =>
  Object.assign(new Error('message not read'), { code }, extra);

describe('classifyTransportError', () => {
  it('classes undici and socket codes, also when they are the cause of a fetch TypeError', () => {
    const cases: Array<[unknown, string]> = [
      [coded('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
      [coded('ECONNRESET'), 'connection_reset'],
      [coded('ECONNREFUSED'), 'connection_refused'],
      [coded('ENOTFOUND'), 'dns_error'],
      [coded('CERT_HAS_EXPIRED'), 'tls_error'],
      [coded('SELF_SIGNED_CERT_IN_CHAIN'), 'tls_error'],
      [coded('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls_error'],
      [coded('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION'), 'tls_error'],
      [coded('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls_error'],
      [coded('EPROTO'), 'tls_error'],
      [coded('ERR_HTTP2_STREAM_ERROR'), 'connection_reset'],
      [coded('ERR_HTTP2_SESSION_ERROR'), 'connection_reset'],
      [coded('ERR_HTTP2_GOAWAY_SESSION'), 'connection_reset'],
      [coded('ERR_HTTP2_ERROR'), 'protocol_error'],
      [coded('ERR_HTTP2_INVALID_HEADER_VALUE'), 'protocol_error'],
      [new TypeError('fetch failed', { cause: coded('ERR_HTTP2_STREAM_ERROR') }), 'connection_reset'],
      [new TypeError('fetch failed', { cause: coded('ERR_SSL_WRONG_VERSION_NUMBER') }), 'tls_error'],
      [new TypeError('fetch failed', { cause: coded('ECONNREFUSED') }), 'connection_refused'],
      [Object.assign(new Error('x'), { name: 'TimeoutError' }), 'timeout'],
      [Object.assign(new Error('other side closed'), { name: 'SocketError' }), 'connection_reset'],
      [coded('E_SOMETHING_NEW'), 'other'],
      // Names an object has by its prototype are no codes of ours.
      [coded('constructor'), 'other'],
      [coded('toString'), 'other'],
      [coded('__proto__'), 'other'],
      ['a string', 'other'],
      [undefined, 'other'],
    ];
    for (const [error, type] of cases) {
      assert.deepEqual(
        classifyTransportError(error),
        { cancelled: false, type },
        String((error as Error)?.stack ?? error),
      );
    }
    assert.deepEqual(classifyTransportError(coded('UND_ERR_ABORTED')), {
      cancelled: true,
      type: 'cancelled',
    });
    assert.deepEqual(classifyTransportError(new DOMException('aborted', 'AbortError')), {
      cancelled: true,
      type: 'cancelled',
    });
  });

  it('an https:// request to a server that speaks plain HTTP is a tls_error', async () => {
    const server = createServer((_req, res) => res.end('plain'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const error = await fetch(`https://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST' }).then(
        () => assert.fail('the request cannot succeed'),
        (e: unknown) => e,
      );
      assert.deepEqual(classifyTransportError(error), { cancelled: false, type: 'tls_error' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
