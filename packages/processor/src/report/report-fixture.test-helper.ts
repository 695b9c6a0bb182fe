import { exactDistribution } from '../evaluation/exact-distribution.ts';
import { seededRandom } from '../evaluation/simulated-calls.ts';
import { commonEdges, type ReportData, type ReportLane, reportMilestoneOf } from './report-data.ts';

const KEYS = [
  'time_to_headers',
  'time_to_first_chunk',
  'time_to_first_output',
  'time_to_first_text',
  'duration',
];

/** A report of three lanes from known samples, for the report's tests (one lane name needs escaping). */
export function reportFixture(): ReportData {
  const random = seededRandom(5);
  const lognormal = (median: number, sigma: number) => {
    const z = Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
    return median * Math.exp(sigma * z);
  };
  const lanes = [
    { lane: 'steady', stall: 0, base: 0.3 },
    { lane: 'spiky', stall: 0.1, base: 0.2 },
    { lane: 'x<script>alert(1)</script>', stall: 0, base: 0.5 },
  ].map(({ lane, stall, base }) => {
    const samples = KEYS.map((_, k) =>
      Array.from(
        { length: 400 },
        () => (random() < stall ? 1 : 0) + lognormal(base + k * 0.05, 0.15) * (k === 4 ? 4 : 1),
      ),
    );
    return { lane, distributions: samples.map((s) => exactDistribution(s)) };
  });
  const edges = commonEdges(lanes.flatMap((l) => l.distributions));
  return {
    title: 'lanewatch demo: lane health',
    subtitle: 'three lanes from known samples',
    generated_at: '2026-11-30T08:00:00.000Z',
    edges,
    notes: ['mean first_text steady 0.45 s, spiky 0.45 s'],
    lanes: lanes.map(
      ({ lane, distributions }): ReportLane => ({
        lane,
        description: `the ${lane} lane`,
        format: 'openai-chat',
        state: lane === 'spiky' ? 'degraded' : 'healthy',
        samples: 400,
        min_samples: 50,
        milestones: Object.fromEntries(
          KEYS.map((key, i) => [key, reportMilestoneOf(distributions[i] as never, edges)]),
        ),
        expected_cost_s: 1.5,
        first_text_cost_s: 0.5,
        cutoffs: { first_output_s: 0.6, total_s: 2.4 },
        hedge: { after_s: 0.4, allowed: true },
        rate_limited: 0,
        error_rate: 0,
        admitted: 3,
        passed_over: 2,
        reasons: ['p95 time_to_first_output 0.4 s over 400 samples'],
      }),
    ),
  };
}
