import type { LaneKnobs } from './lane-knobs.ts';
import { type LaneSample, sampleLane } from './lane-sampler.ts';
import type { Respond } from './provider-server.ts';

export interface LaneResponder {
  readonly knobs: LaneKnobs;
  /** Give to `startProviderServer`: draws request n of the lane when it arrives. */
  readonly respond: Respond;
  /** The sample drawn for a request index once it has arrived: its script and what was decided. */
  sampleOf(index: number): LaneSample | undefined;
}

/**
 * A lane's `respond`: deterministic per request index (see `sampleLane`), plus the one thing that
 * depends on real time — whether the lane has gone cold after `coldStartIdleMs` without arrivals.
 */
export function laneResponder(knobs: LaneKnobs, options: { seed: number | string }): LaneResponder {
  const samples = new Map<number, LaneSample>();
  let lastArrivalAt: number | undefined;
  return {
    knobs,
    respond(request) {
      const idle =
        knobs.coldStartIdleMs > 0 &&
        lastArrivalAt !== undefined &&
        request.arrivedAt - lastArrivalAt >= knobs.coldStartIdleMs;
      lastArrivalAt = Math.max(lastArrivalAt ?? request.arrivedAt, request.arrivedAt);
      const sample = sampleLane(knobs, options.seed, request.index, {
        cold: request.index < knobs.coldStartRequests || idle,
      });
      samples.set(request.index, sample);
      return sample.script;
    },
    sampleOf: (index) => samples.get(index),
  };
}
