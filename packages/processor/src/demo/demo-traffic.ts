import { setTimeout as delay } from 'node:timers/promises';
import { MILESTONE_QUANTILE_KEY, type Milestone } from '@lanewatch/instrumentation/names';
import { seededRandom, seedOf } from '@lanewatch/simulator';
import type { AdmissionController } from '../admission/admission-controller.ts';
import type { InstrumentedClient, MeasuredCall } from '../probe/instrumented-client.ts';
import { type ProviderFormat, providerRequest } from '../probe/provider-request.ts';
import { demoJob } from './demo-jobs.ts';
import type { DemoTally } from './demo-tally.ts';

export interface TrafficLane {
  readonly lane: string;
  readonly url: string;
  readonly format: ProviderFormat;
  readonly model: string;
}

export interface DemoTrafficOptions {
  readonly lanes: readonly TrafficLane[];
  readonly client: InstrumentedClient;
  readonly admission: AdmissionController;
  readonly tally: DemoTally;
  /** Calls per second that reach every lane whatever the jobs do (other services' use of the lane). */
  readonly ratePerLane: number;
  /** Jobs per second, each admitted or refused on the live hints. */
  readonly jobRate: number;
  readonly seed: string;
  readonly timeScale: number;
  /**
   * Whether jobs may start: the demo holds them until some lane has been judged, so its count of
   * refusals is about deadlines rather than the first seconds (when every lane is `unknown` and every
   * job would be refused at once — the right answer, and a dull one).
   */
  readonly jobsReady: () => boolean;
}

export interface DemoTraffic {
  /** Calls in flight now. */
  readonly inFlight: number;
  /**
   * Stops new calls and jobs, lets the calls in flight finish for up to `drainMs`, then cancels the
   * rest (the instrumentation records them as `cancelled`, which is not an error of the lane).
   */
  stop(drainMs: number): Promise<void>;
}

/**
 * The demo's traffic: every lane gets calls at a steady Poisson rate, so each is measured and warms up
 * to `min_samples`; on top, jobs with deadlines arrive and go through `admit` on the hints in the
 * lane-health file, so every admission and refusal is a real decision on live numbers. An admitted batch
 * job is cancelled at its deadline, as a caller with a cutoff would.
 */
export function startDemoTraffic(options: DemoTrafficOptions): DemoTraffic {
  const { client, tally } = options;
  const inFlight = new Set<AbortController>();
  let running = true;
  const byLane = new Map(options.lanes.map((lane) => [lane.lane, lane]));
  const random = seededRandom(seedOf(options.seed), 0, 11);
  const gapMs = (rate: number) => (-Math.log(1 - random.next()) / rate) * 1000;

  function call(lane: TrafficLane, deadlineMs?: number): Promise<MeasuredCall | undefined> {
    const request = providerRequest(lane.format, new URL(lane.url), { model: lane.model });
    const abort = new AbortController();
    inFlight.add(abort);
    const timer = deadlineMs === undefined ? undefined : setTimeout(() => abort.abort(), deadlineMs);
    const { result, measured } = client.call(async () => {
      const response = await fetch(request.url, { ...request.init, signal: abort.signal });
      if (response.body) for await (const _ of response.body) void _;
    });
    result
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        inFlight.delete(abort);
      });
    return measured;
  }

  async function arrivals(rate: number, arrive: () => void): Promise<void> {
    while (running) {
      await delay(gapMs(rate));
      if (running) arrive();
    }
  }

  for (const lane of options.lanes) void arrivals(options.ratePerLane, () => void call(lane));

  let jobIndex = 0;
  async function job(): Promise<void> {
    const spec = demoJob(jobIndex++, options.seed, options.timeScale);
    const decision = await options.admission.admit(spec);
    tally.recordDecision(decision);
    const lane = decision.lane === null ? undefined : byLane.get(decision.lane);
    if (!decision.admitted || lane === undefined) return;
    const milestone: Milestone = spec.milestone ?? 'end';
    const measured = await call(lane, milestone === 'end' ? spec.deadline_s * 1000 : undefined);
    if (!running && measured?.outcome === 'cancelled') return; // cut by the demo's own stop
    const reachedMs = measured?.milestonesMs[milestone];
    // A call that never reached the milestone (cut at the deadline, a 429) counts as past the deadline.
    const actualS =
      reachedMs === undefined
        ? Math.max(spec.deadline_s + 0.001, (measured?.milestonesMs.end ?? 0) / 1000)
        : reachedMs / 1000;
    const met = reachedMs !== undefined && actualS <= spec.deadline_s;
    tally.recordJobOutcome(met);
    options.admission.recordOutcome(
      decision.decision_id,
      actualS,
      met ? 'ok' : reachedMs === undefined ? `no_${MILESTONE_QUANTILE_KEY[milestone]}` : 'late',
    );
  }
  if (options.jobRate > 0) {
    void arrivals(options.jobRate, () => {
      if (options.jobsReady()) void job().catch(() => undefined);
    });
  }

  return {
    get inFlight() {
      return inFlight.size;
    },
    async stop(drainMs) {
      running = false;
      const until = performance.now() + drainMs;
      while (inFlight.size > 0 && performance.now() < until) await delay(20);
      for (const abort of inFlight) abort.abort();
    },
  };
}
