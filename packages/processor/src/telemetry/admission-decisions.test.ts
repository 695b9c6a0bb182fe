import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { admit } from '../admission/admit.ts';
import { exampleRecord } from '../evaluation/example-record.test-helper.ts';
import { type LaneHealthView, viewOf } from '../evaluation/lane-health.ts';
import { admissionDecisionRecorder, decisionReasonOf } from './admission-decisions.ts';
import { PROCESSOR_INSTRUMENT, PROCESSOR_METER, TELEMETRY_ATTR } from './instrument-names.ts';

const T0 = Date.parse('2026-11-30T08:00:00Z');
const now = () => T0;

/** A reader collected on demand. */
class CollectingReader extends MetricReader {
  protected override onForceFlush() {
    return Promise.resolve();
  }
  protected override onShutdown() {
    return Promise.resolve();
  }
  /** `[attributes, value]` of every point of the decision counter, and its scope. */
  async decisions() {
    const { resourceMetrics } = await this.collect();
    return resourceMetrics.scopeMetrics.flatMap((scope) =>
      scope.metrics
        .filter((m) => m.descriptor.name === PROCESSOR_INSTRUMENT.admissionDecisions.name)
        .flatMap((m) => m.dataPoints.map((p) => [scope.scope.name, p.attributes, p.value] as const)),
    );
  }
}

function hints(): LaneHealthView[] {
  return [
    viewOf(exampleRecord('fast', { now: T0 }), T0),
    viewOf(exampleRecord('slow', { now: T0, medianS: 2 }), T0),
  ];
}

afterEach(() => metrics.disable());

describe('admission decisions', () => {
  it('classes each reason into a bounded set', () => {
    assert.equal(decisionReasonOf(admit({ id: 'a', deadline_s: 60 }, hints(), { now })), 'within_budget');
    assert.equal(decisionReasonOf(admit({ id: 'b', deadline_s: 1.01 }, hints(), { now })), 'over_budget');
    assert.equal(decisionReasonOf(admit({ id: 'c', deadline_s: 60 }, [], { now })), 'no_lanes');
    const stale = hints().map((h) => ({ ...h, stale: true }));
    assert.equal(decisionReasonOf(admit({ id: 'd', deadline_s: 60 }, stale, { now })), 'no_eligible_lane');
  });

  it('counts on the meter it is given: the chosen lane when admitted, none when refused', async () => {
    const reader = new CollectingReader();
    const provider = new MeterProvider({ readers: [reader] });
    const record = admissionDecisionRecorder(provider.getMeter('host'));
    record(admit({ id: 'a', deadline_s: 60 }, hints(), { now }));
    record(admit({ id: 'b', deadline_s: 60 }, hints(), { now }));
    record(admit({ id: 'c', deadline_s: 1.01 }, hints(), { now }));
    assert.deepEqual(await reader.decisions(), [
      [
        'host',
        {
          [TELEMETRY_ATTR.decision]: 'admitted',
          [TELEMETRY_ATTR.reason]: 'within_budget',
          [TELEMETRY_ATTR.lane]: 'fast',
        },
        2,
      ],
      ['host', { [TELEMETRY_ATTR.decision]: 'refused', [TELEMETRY_ATTR.reason]: 'over_budget' }, 1],
    ]);
  });

  it('without a meter, uses the global provider current at each decision: none, then the host SDK', async () => {
    const record = admissionDecisionRecorder();
    record(admit({ id: 'before-sdk', deadline_s: 60 }, hints(), { now })); // the API's no-op: nothing
    const reader = new CollectingReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    record(admit({ id: 'after-sdk', deadline_s: 60 }, hints(), { now }));
    const decisions = await reader.decisions();
    assert.equal(decisions.length, 1);
    assert.equal(decisions[0]?.[0], PROCESSOR_METER);
    assert.equal(decisions[0]?.[2], 1);
  });

  it('never throws into admit', () => {
    const broken = {
      createCounter() {
        return {
          add() {
            throw new Error('broken meter');
          },
        };
      },
    } as unknown as Parameters<typeof admissionDecisionRecorder>[0];
    assert.doesNotThrow(() =>
      admissionDecisionRecorder(broken)(admit({ id: 'a', deadline_s: 60 }, hints(), { now })),
    );
  });
});
