import type { LaneHealth } from '../evaluation/lane-health.ts';
import { parseRecord } from '../store/lane-health-store.ts';
import type { LaneSource } from './lane-reader.ts';

export interface HttpLaneSourceOptions {
  readonly onError?: (error: Error) => void;
  /** Per-request timeout (ms). */
  readonly timeoutMs?: number;
}

function recordsOf(value: unknown): LaneHealth[] {
  const list = (value as { lanes?: unknown } | undefined)?.lanes;
  if (!Array.isArray(list)) return [];
  return list
    .map((item) => parseRecord(JSON.stringify(item)))
    .filter((r): r is LaneHealth => r !== undefined);
}

/**
 * A processor's HTTP feed as a lane source. When the processor cannot be reached, it answers from what
 * it read last (the reader then marks those records stale once they expire).
 */
export function createHttpLaneSource(base: string, options: HttpLaneSourceOptions = {}): LaneSource {
  const root = base.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 2000;
  const cache = new Map<string, LaneHealth>();
  const controllers = new Set<AbortController>();
  let closed = false;

  const remember = (record: LaneHealth) => {
    const old = cache.get(record.lane);
    if (!old || old.updated_at <= record.updated_at) cache.set(record.lane, record);
  };
  const fail = (error: unknown) =>
    options.onError?.(error instanceof Error ? error : new Error(String(error)));

  return {
    async readAll() {
      try {
        const response = await fetch(`${root}/v1/lanes`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!response.ok) throw new Error(`GET /v1/lanes answered ${response.status}`);
        const records = recordsOf(await response.json());
        for (const record of records) remember(record);
        return records;
      } catch (error) {
        fail(error);
        return [...cache.values()];
      }
    },
    async read(lane) {
      try {
        // `/v1/lanes/stream` is the live feed: a lane of that name is asked for with a letter escaped.
        const path = lane === 'stream' ? '%73tream' : encodeURIComponent(lane);
        const response = await fetch(`${root}/v1/lanes/${path}`, {
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (response.status === 404) return undefined;
        if (!response.ok) throw new Error(`GET /v1/lanes/{lane} answered ${response.status}`);
        const record = parseRecord(await response.text());
        if (record) remember(record);
        return record;
      } catch (error) {
        fail(error);
        return cache.get(lane);
      }
    },
    async watch(listener) {
      const controller = new AbortController();
      controllers.add(controller);
      // Every new record, as the file and Redis sources tell them: the first connection's snapshot is
      // what there was (not news); a reconnection's snapshot tells what changed while it was away.
      const seen = new Map<string, string>();
      let connected = false;
      const onRecord = (record: LaneHealth, fromSnapshot: boolean) => {
        remember(record);
        const last = seen.get(record.lane);
        if (last !== undefined && last >= record.updated_at) return;
        seen.set(record.lane, record.updated_at);
        if (fromSnapshot && !connected) return;
        listener(record);
      };
      void (async () => {
        // Reconnect until unsubscribed: each connection starts with a snapshot, so nothing is missed.
        while (!controller.signal.aborted && !closed) {
          try {
            await followStream(`${root}/v1/lanes/stream`, controller.signal, onRecord, () => {
              connected = true;
            });
          } catch (error) {
            if (!controller.signal.aborted) fail(error);
          }
          if (!controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      })();
      return async () => {
        controller.abort();
        controllers.delete(controller);
      };
    },
    async close() {
      closed = true;
      for (const controller of controllers) controller.abort();
      controllers.clear();
    },
  };
}

/** Reads the SSE feed (WHATWG HTML §9.2.6: lines, `event:`/`data:` fields, blank line dispatches). */
async function followStream(
  url: string,
  signal: AbortSignal,
  onRecord: (record: LaneHealth, fromSnapshot: boolean) => void,
  onSnapshotRead: () => void,
): Promise<void> {
  const response = await fetch(url, { signal, headers: { accept: 'text/event-stream' } });
  if (!response.ok || !response.body) throw new Error(`GET /v1/lanes/stream answered ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let newline = buffer.search(/\r\n|\r|\n/);
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        const payload = data.join('\n');
        if (event === 'snapshot') {
          try {
            for (const record of recordsOf(JSON.parse(payload))) onRecord(record, true);
          } catch {
            // a malformed snapshot is skipped; the next event carries on
          }
          onSnapshotRead();
        } else if (event === 'lane') {
          const record = parseRecord(payload);
          if (record) onRecord(record, false);
        }
        event = 'message';
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      newline = buffer.search(/\r\n|\r|\n/);
    }
    // A line longer than any record can be is a broken stream, not something to buffer forever.
    if (buffer.length > 4 * 1024 * 1024) throw new Error('SSE line over 4 MiB');
  }
}
