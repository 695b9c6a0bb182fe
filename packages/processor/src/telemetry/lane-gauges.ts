import type { BatchObservableCallback, Meter, Observable } from '@opentelemetry/api';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import { type InstrumentKey, PROCESSOR_INSTRUMENT } from './instrument-names.ts';
import { lanePointsOf } from './lane-points.ts';

const GAUGES = (Object.keys(PROCESSOR_INSTRUMENT) as InstrumentKey[]).filter(
  (key) => PROCESSOR_INSTRUMENT[key].kind === 'gauge',
);

/**
 * The lane gauges on `meter`, read from `records()` each time the metrics are collected: one pass over
 * the records per collection, however many gauges. `records` should give the latest unexpired record of
 * each lane; a lane it stops giving stops having points. Returns a function that unregisters them.
 */
export function observeLaneHealth(meter: Meter, records: () => Iterable<LaneHealth>): () => void {
  const gauges = new Map<InstrumentKey, Observable>(
    GAUGES.map((key) => {
      const { name, unit, description } = PROCESSOR_INSTRUMENT[key];
      return [key, meter.createObservableGauge(name, { unit, description })];
    }),
  );
  const callback: BatchObservableCallback = (observer) => {
    for (const record of records()) {
      for (const point of lanePointsOf(record)) {
        const gauge = gauges.get(point.instrument);
        if (gauge) observer.observe(gauge, point.value, point.attributes);
      }
    }
  };
  const observables = [...gauges.values()];
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}
