import { type LaneHealth, type LaneHealthView, viewOf } from '../evaluation/lane-health.ts';
import type { LaneHealthStore } from '../store/lane-health-store.ts';
import { openLaneHealthStore, StoreUrlError, shownStoreUrl } from '../store/open-store.ts';
import { createHttpLaneSource } from './http-lane-source.ts';

/**
 * Lane health for other services, from wherever the processor publishes it. Every record comes back
 * with `stale`, judged on the reader's own clock against `expires_at`: a record past its expiry is
 * stale, never fresh, whatever the source said.
 */
export interface LaneReader {
  readonly source: string;
  lanes(): Promise<LaneHealthView[]>;
  lane(name: string): Promise<LaneHealthView | undefined>;
  /** Every new record from now on; resolves to an unsubscribe function. */
  watch(listener: (view: LaneHealthView) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface LaneReaderOptions {
  readonly now?: () => number;
  /** Failures reading the source (the reader then answers from what it last read). */
  readonly onError?: (error: Error) => void;
}

/** The read side of a store, or of a processor's HTTP feed. */
export interface LaneSource {
  readAll(): Promise<LaneHealth[]>;
  read(lane: string): Promise<LaneHealth | undefined>;
  watch(listener: (record: LaneHealth) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * `createLaneReader('file:./lane-health.json')`, `createLaneReader('redis://127.0.0.1:6379?prefix=lanewatch')`
 * or `createLaneReader('http://127.0.0.1:4320')`.
 */
export async function createLaneReader(source: string, options: LaneReaderOptions = {}): Promise<LaneReader> {
  const now = options.now ?? Date.now;
  let lanes: LaneSource;
  if (source.startsWith('http://') || source.startsWith('https://')) {
    lanes = createHttpLaneSource(source, options.onError ? { onError: options.onError } : {});
  } else if (source.startsWith('file:') || source.startsWith('redis://') || source.startsWith('rediss://')) {
    const store: LaneHealthStore = await openLaneHealthStore(source, {
      readOnly: true,
      ...(options.onError ? { onError: options.onError } : {}),
    });
    lanes = store;
  } else {
    // Not echoed: a source in the wrong place may carry a password or be a key.
    throw new StoreUrlError(
      `lane source ${shownStoreUrl(source)} is not one of file:./lane-health.json, redis://host:6379 or http://host:4320`,
    );
  }
  return {
    source,
    async lanes() {
      return (await lanes.readAll())
        .map((r) => viewOf(r, now()))
        .sort((a, b) => a.lane.localeCompare(b.lane));
    },
    async lane(name) {
      const record = await lanes.read(name);
      return record ? viewOf(record, now()) : undefined;
    },
    watch: (listener) => lanes.watch((record) => listener(viewOf(record, now()))),
    close: () => lanes.close(),
  };
}
