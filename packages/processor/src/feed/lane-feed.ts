import type { LaneHealth } from '../evaluation/lane-health.ts';

export type LaneFeedListener = (records: readonly LaneHealth[]) => void;

/**
 * The latest record of every lane in this process, and everyone who wants each new one: the evaluation
 * loop publishes, the HTTP routes and the SSE stream read. Listeners must not throw; one that does is
 * dropped rather than allowed to stop the others.
 */
export interface LaneFeed {
  publish(records: readonly LaneHealth[]): void;
  snapshot(): LaneHealth[];
  get(lane: string): LaneHealth | undefined;
  subscribe(listener: LaneFeedListener): () => void;
  readonly listenerCount: number;
}

export function createLaneFeed(initial: readonly LaneHealth[] = []): LaneFeed {
  const latest = new Map<string, LaneHealth>();
  for (const record of initial) latest.set(record.lane, record);
  const listeners = new Set<LaneFeedListener>();
  return {
    publish(records) {
      for (const record of records) latest.set(record.lane, record);
      for (const listener of [...listeners]) {
        try {
          listener(records);
        } catch {
          listeners.delete(listener);
        }
      }
    },
    snapshot: () => [...latest.values()].sort((a, b) => a.lane.localeCompare(b.lane)),
    get: (lane) => latest.get(lane),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get listenerCount() {
      return listeners.size;
    },
  };
}
