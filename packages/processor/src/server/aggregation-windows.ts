import { LaneWindows as SlidingWindows } from '../aggregation/lane-windows.ts';
import type { LaneObservation } from '../lane-observation.ts';
import type { LaneWindows, ObservedLane } from './observation-source.ts';

export interface AggregationWindowsOptions {
  readonly windowS: number;
  readonly sliceS: number;
  readonly now?: () => number;
}

/**
 * Ingest → windows for the running processor: aggregation's sliding window, plus a second one two
 * slices long that hands the evaluation its `recent` view (the newest 10–20 s), so a lane that
 * suddenly slows is flagged within a slice and an interval rather than when the whole window's p95
 * moves. The cost is a second delta/merge per point; the short window remembers streams as long as the
 * main one, so a 60-second exporter's cumulative points still make deltas in it.
 */
export function createAggregationWindows(options: AggregationWindowsOptions): LaneWindows {
  const now = options.now ?? Date.now;
  const window = new SlidingWindows({ windowSeconds: options.windowS, sliceSeconds: options.sliceS });
  const recent = new SlidingWindows({
    windowSeconds: 2 * options.sliceS,
    sliceSeconds: options.sliceS,
    streamTtlSeconds: window.options.streamTtlSeconds,
  });
  const laneLevel = (o: LaneObservation) => o.sizeClass === undefined;
  return {
    accepts: window.accepts,
    ingest(batch) {
      const at = now();
      const result = window.ingest(batch, at);
      recent.ingest(batch, at);
      return result;
    },
    observe(at): ObservedLane[] {
      const newest = new Map(
        recent
          .observe(at)
          .filter(laneLevel)
          .map((o) => [o.lane, o]),
      );
      return window
        .observe(at)
        .filter(laneLevel)
        .map((o) => ({ window: o, recent: newest.get(o.lane) }));
    },
  };
}
