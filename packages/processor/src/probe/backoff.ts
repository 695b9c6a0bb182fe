/**
 * How long to wait after a 429. `Retry-After` (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) is a
 * floor the server asked for; without it, "full jitter" (a uniform draw between 0 and an exponentially
 * growing cap) spreads retries so that callers stopped by the same burst do not return together.
 */
export interface BackoffPolicy {
  /** The cap of the first retry's draw, ms. */
  readonly baseMs: number;
  /** The largest draw, ms; a `Retry-After` longer than this ends the sample's retries instead. */
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000 };

/** `Retry-After` in ms, or `undefined` when absent or unreadable; `retry-after-ms` (OpenAI, Anthropic) first. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry `retry` (1 for the first): `max(Retry-After, uniform(0, min(max, base·2^(retry−1))))`,
 * so the server's floor is honoured and jitter still spreads callers beyond it.
 */
export function backoffMs(
  retry: number,
  serverMs: number | undefined,
  random: () => number = Math.random,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
): number {
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.max(serverMs ?? 0, random() * cap);
}
