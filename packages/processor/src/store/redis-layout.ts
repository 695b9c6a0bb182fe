/**
 * Redis key layout. Every key carries the same hash tag, `{<prefix>}`, so on Redis Cluster all of a
 * deployment's keys live in one slot: one MULTI writes every lane and the index atomically, and one
 * MGET reads them back. The data is a few kilobytes per lane; one slot holds it easily.
 *
 * - `{lanewatch}:lane:<lane>`  string, the record as JSON, with a TTL (expiry + retention)
 * - `{lanewatch}:lanes`        set, the names of the lanes written
 * - `{lanewatch}:changes`      pub/sub channel, every record written, as JSON
 */
export interface RedisLayout {
  readonly prefix: string;
  laneKey(lane: string): string;
  readonly indexKey: string;
  readonly channel: string;
}

export const DEFAULT_REDIS_PREFIX = 'lanewatch';

export function redisLayout(prefix: string = DEFAULT_REDIS_PREFIX): RedisLayout {
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) {
    throw new TypeError(
      'a Redis ?prefix= must be 1–64 letters, digits, "_", ".", ":" or "-" (it becomes the {hash tag})',
    );
  }
  const tag = `{${prefix}}`;
  return {
    prefix,
    laneKey: (lane) => `${tag}:lane:${lane}`,
    indexKey: `${tag}:lanes`,
    channel: `${tag}:changes`,
  };
}

/** `redis://host:port/db?prefix=name` → the client URL without our parameter, and the layout. */
export function parseRedisUrl(url: string): { clientUrl: string; layout: RedisLayout } {
  const parsed = new URL(url);
  const prefix = parsed.searchParams.get('prefix') ?? DEFAULT_REDIS_PREFIX;
  parsed.searchParams.delete('prefix');
  return { clientUrl: parsed.toString(), layout: redisLayout(prefix) };
}
