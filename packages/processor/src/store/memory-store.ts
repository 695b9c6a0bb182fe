import type { LaneHealth } from '../evaluation/lane-health.ts';
import type { LaneHealthStore, StoreStatus } from './lane-health-store.ts';

/** A store in this process only: for the demo and tests. */
export function createMemoryStore(): LaneHealthStore {
  const records = new Map<string, LaneHealth>();
  const listeners = new Set<(record: LaneHealth) => void>();
  let lastWriteAt: number | undefined;
  return {
    kind: 'memory',
    async write(batch) {
      for (const record of batch) records.set(record.lane, record);
      lastWriteAt = Date.now();
      for (const record of batch) for (const listener of listeners) listener(record);
    },
    async readAll() {
      return [...records.values()];
    },
    async read(lane) {
      return records.get(lane);
    },
    async watch(listener) {
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
      };
    },
    status(): StoreStatus {
      return { kind: 'memory', connected: true, lastWriteAt, lastError: undefined };
    },
    async close() {
      listeners.clear();
    },
  };
}
