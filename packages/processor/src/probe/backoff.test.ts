import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, DEFAULT_BACKOFF, retryAfterMs } from './backoff.ts';

describe('429 backoff', () => {
  it('reads Retry-After as seconds or an HTTP date, and retry-after-ms first', () => {
    const now = Date.parse('2026-11-30T08:00:00Z');
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '3' }), now), 3000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'Mon, 30 Nov 2026 08:00:05 GMT' }), now), 5000);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': '2', 'retry-after-ms': '1500' }), now), 1500);
    assert.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now), undefined);
    assert.equal(retryAfterMs(new Headers(), now), undefined);
  });

  it('draws full jitter under a doubling cap, and never waits less than Retry-After', () => {
    assert.equal(
      backoffMs(1, undefined, () => 0),
      0,
    );
    assert.equal(
      backoffMs(1, undefined, () => 0.999_999),
      DEFAULT_BACKOFF.baseMs * 0.999_999,
    );
    assert.equal(
      backoffMs(3, undefined, () => 0.5),
      DEFAULT_BACKOFF.baseMs * 2,
    );
    assert.ok(backoffMs(30, undefined, () => 0.999) <= DEFAULT_BACKOFF.maxMs);
    assert.equal(
      backoffMs(1, 2000, () => 0.1),
      2000,
      'the server floor wins over a short draw',
    );
    assert.equal(
      backoffMs(8, 2000, () => 1),
      Math.min(DEFAULT_BACKOFF.maxMs, 500 * 2 ** 7),
    );
  });
});
