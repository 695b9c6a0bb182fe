import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { viewOf } from '../evaluation/lane-health.ts';
import type { LaneFeed } from './lane-feed.ts';

export interface LaneStreamOptions {
  readonly heartbeatMs?: number;
  /** A client that has not drained its socket for this long is disconnected (it can reconnect). */
  readonly stallTimeoutMs?: number;
  readonly now?: () => number;
}

/** What one stream connection holds, for `/healthz` and the tests. */
export interface LaneStreamStats {
  readonly bufferedBytes: number;
  readonly pendingLanes: number;
  readonly blocked: boolean;
}

/**
 * `GET /v1/lanes/stream`: Server-Sent Events (WHATWG HTML §9.2). On connect, one `snapshot` event
 * with every lane; then one `lane` event per new record; a comment line as heartbeat so proxies keep
 * the connection open and clients notice a dead one.
 *
 * A slow client never makes the server buffer without bound: once the socket refuses more
 * (`write` returns false), new records are held in a map keyed by lane — only the latest of each
 * lane, which is all a client needs — and written when the socket drains. The memory a client can
 * hold is one record per lane plus the socket's high-water mark.
 */
export function serveLaneStream(
  req: IncomingMessage,
  res: ServerResponse,
  feed: LaneFeed,
  options: LaneStreamOptions = {},
): { stats(): LaneStreamStats } {
  const now = options.now ?? Date.now;
  const pending = new Map<string, LaneHealth>();
  let blocked = false;
  let blockedSince = 0;
  let sequence = 0;

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();

  const write = (chunk: string): void => {
    if (!res.write(chunk)) {
      blocked = true;
      blockedSince = now();
    }
  };
  const laneEvent = (record: LaneHealth): string =>
    `event: lane\nid: ${++sequence}\ndata: ${JSON.stringify(viewOf(record, now()))}\n\n`;

  // `retry` (ms) tells EventSource how long to wait before reconnecting.
  write(
    `retry: 2000\nevent: snapshot\nid: ${++sequence}\ndata: ${JSON.stringify({
      lanes: feed.snapshot().map((r) => viewOf(r, now())),
    })}\n\n`,
  );

  const unsubscribe = feed.subscribe((records) => {
    if (blocked) {
      for (const record of records) pending.set(record.lane, record);
      return;
    }
    for (const record of records) {
      if (blocked) pending.set(record.lane, record);
      else write(laneEvent(record));
    }
  });
  const onDrain = () => {
    blocked = false;
    for (const [lane, record] of pending) {
      pending.delete(lane);
      write(laneEvent(record));
      if (blocked) return;
    }
  };
  res.on('drain', onDrain);

  const stallTimeoutMs = options.stallTimeoutMs ?? 60_000;
  const heartbeat = setInterval(() => {
    if (!blocked) write(`: heartbeat ${new Date(now()).toISOString()}\n\n`);
    else if (now() - blockedSince > stallTimeoutMs) res.destroy();
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();

  const close = () => {
    clearInterval(heartbeat);
    unsubscribe();
    pending.clear();
  };
  req.on('close', close);
  res.on('close', close);

  return {
    stats: () => ({ bufferedBytes: res.writableLength, pendingLanes: pending.size, blocked }),
  };
}
