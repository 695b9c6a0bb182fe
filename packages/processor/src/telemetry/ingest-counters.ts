import { type Meter, ValueType } from '@opentelemetry/api';
import { PROCESSOR_INSTRUMENT, TELEMETRY_ATTR } from './instrument-names.ts';

/** What `POST /v1/metrics` tells the processor's own metrics. */
export interface IngestCounters {
  /** A request was answered with `status`. */
  request(status: number): void;
  /** A decoded request's lanewatch points: taken into the windows, or rejected. */
  points(accepted: number, rejected: number): void;
}

export function ingestCounters(meter: Meter): IngestCounters {
  const counter = (key: 'ingestPoints' | 'ingestRequests') => {
    const { name, unit, description } = PROCESSOR_INSTRUMENT[key];
    return meter.createCounter(name, { unit, description, valueType: ValueType.INT });
  };
  const points = counter('ingestPoints');
  const requests = counter('ingestRequests');
  const accepted = { [TELEMETRY_ATTR.ingestResult]: 'accepted' };
  const rejected = { [TELEMETRY_ATTR.ingestResult]: 'rejected' };
  // Counting never throws into the receiver: a batch is never lost to telemetry.
  return {
    request(status) {
      try {
        requests.add(1, { [TELEMETRY_ATTR.statusCode]: status });
      } catch {}
    },
    points(acceptedCount, rejectedCount) {
      try {
        // Both series exist from the first request on, so a rate over either never starts from nothing.
        points.add(Math.max(0, acceptedCount), accepted);
        points.add(Math.max(0, rejectedCount), rejected);
      } catch {}
    },
  };
}
