import { createClient } from 'redis';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import {
  errorClass,
  type LaneHealthStore,
  parseRecord,
  type StoreErrorListener,
  type StoreStatus,
} from './lane-health-store.ts';
import { parseRedisUrl } from './redis-layout.ts';

export interface RedisStoreOptions {
  /** `redis://[user:pass@]host:port[/db][?prefix=lanewatch]` */
  readonly url: string;
  readonly onError?: StoreErrorListener;
  /**
   * How long a key outlives its record's `expires_at` (seconds), so readers still find the record and
   * call it stale rather than finding nothing; past that the lane is gone. Default 1 hour.
   */
  readonly retentionS?: number;
  /** How long creating the store waits for a first connection before going on without (ms). */
  readonly connectWaitMs?: number;
  /** A reader's store: never writes, and does not put back on reconnection what it only read. */
  readonly readOnly?: boolean;
  /** For tests: the clock that turns `expires_at` into a TTL. */
  readonly now?: () => number;
}

/**
 * The shared store. Reads and writes are served from memory whenever Redis cannot answer; commands
 * fail fast instead of queueing while disconnected (a queue would grow without bound and replay stale
 * records), and on every reconnection the latest record of each lane is written and published again —
 * a restarted Redis has lost them.
 */
export async function createRedisStore(options: RedisStoreOptions): Promise<LaneHealthStore> {
  const { clientUrl, layout } = parseRedisUrl(options.url);
  const now = options.now ?? Date.now;
  const retentionMs = (options.retentionS ?? 3600) * 1000;
  const records = new Map<string, LaneHealth>();
  let lastWriteAt: number | undefined;
  let lastError: string | undefined;
  let connected = false;
  let closed = false;
  const subscribers = new Set<{ destroy(): void }>();

  const report = (error: unknown) => {
    lastError = errorClass(error);
    options.onError?.(error instanceof Error ? error : new Error(lastError));
  };
  const client = createClient({
    url: clientUrl,
    disableOfflineQueue: true,
    socket: {
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
      connectTimeout: 2000,
    },
  });
  client.on('error', (error: unknown) => {
    connected = false;
    report(error);
  });
  client.on('end', () => {
    connected = false;
  });
  client.on('ready', () => {
    connected = true;
    // After a reconnection (a restarted Redis has nothing): put every lane back and tell the readers.
    if (records.size > 0 && !options.readOnly) void send([...records.values()]);
  });
  // Waited for at most `connectWaitMs`: a Redis that is down at start-up is then retried in the
  // background, like a later outage, while the store serves from memory.
  const ready = new Promise<void>((resolve) => client.once('ready', resolve));
  client.connect().catch(report);
  let waitTimer: NodeJS.Timeout | undefined;
  await Promise.race([
    ready,
    new Promise<void>((resolve) => {
      waitTimer = setTimeout(resolve, options.connectWaitMs ?? 2000);
    }),
  ]);
  clearTimeout(waitTimer);

  async function send(batch: readonly LaneHealth[]): Promise<void> {
    if (batch.length === 0 || closed || options.readOnly) return;
    if (!client.isReady) {
      lastError ??= 'NotConnected';
      return;
    }
    try {
      const multi = client.multi();
      for (const record of batch) {
        const json = JSON.stringify(record);
        const ttl = Math.max(1000, Date.parse(record.expires_at) - now() + retentionMs);
        multi.set(layout.laneKey(record.lane), json, { expiration: { type: 'PX', value: Math.round(ttl) } });
        multi.sAdd(layout.indexKey, record.lane);
        multi.publish(layout.channel, json);
      }
      await multi.exec();
      connected = true;
      lastWriteAt = now();
      lastError = undefined;
    } catch (error) {
      report(error);
    }
  }

  async function fetchAll(): Promise<LaneHealth[] | undefined> {
    if (!client.isReady) return undefined;
    try {
      const lanes = await client.sMembers(layout.indexKey);
      if (lanes.length === 0) return [];
      const values = await client.mGet(lanes.map((lane) => layout.laneKey(lane)));
      const found: LaneHealth[] = [];
      for (const value of values) {
        const record = typeof value === 'string' ? parseRecord(value) : undefined;
        if (record) found.push(record);
      }
      return found;
    } catch (error) {
      report(error);
      return undefined;
    }
  }

  return {
    kind: 'redis',
    async write(batch) {
      for (const record of batch) records.set(record.lane, record);
      await send(batch);
    },
    async readAll() {
      const found = await fetchAll();
      if (found === undefined) return [...records.values()];
      // Keep what Redis said as the fallback for the next outage, without dropping lanes we wrote.
      for (const record of found) {
        const mine = records.get(record.lane);
        if (!mine || mine.updated_at <= record.updated_at) records.set(record.lane, record);
      }
      return found;
    },
    async read(lane) {
      if (client.isReady) {
        try {
          const value = await client.get(layout.laneKey(lane));
          const record = typeof value === 'string' ? parseRecord(value) : undefined;
          if (record) return record;
          if (value === null && !records.has(lane)) return undefined;
        } catch (error) {
          report(error);
        }
      }
      return records.get(lane);
    },
    async watch(listener) {
      const subscriber = client.duplicate();
      subscriber.on('error', report);
      subscribers.add(subscriber);
      // node-redis subscribes again by itself after a reconnection.
      await subscriber.connect();
      await subscriber.subscribe(layout.channel, (message: string) => {
        const record = parseRecord(message);
        if (!record) return;
        const mine = records.get(record.lane);
        if (!mine || mine.updated_at <= record.updated_at) records.set(record.lane, record);
        listener(record);
      });
      return async () => {
        subscribers.delete(subscriber);
        await subscriber.unsubscribe(layout.channel).catch(() => undefined);
        subscriber.destroy();
      };
    },
    status(): StoreStatus {
      return { kind: 'redis', connected: connected && client.isReady, lastWriteAt, lastError };
    },
    async close() {
      closed = true;
      for (const subscriber of subscribers) subscriber.destroy();
      subscribers.clear();
      if (client.isOpen) await client.close().catch(() => client.destroy());
      else client.destroy();
    },
  };
}
