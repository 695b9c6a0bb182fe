// The collector between an OTLP sink (standing in for the processor and, when asked, the traces and
// logs backends) and a private Prometheus: what the collector-config and dashboard tests start.
import { type Collector, type CollectorOptions, startCollector } from './collector.ts';
import { type OtlpSink, startOtlpSink } from './otlp-sink.ts';
import { type Prometheus, startPrometheus } from './prometheus.ts';

export interface CollectorStack {
  readonly sink: OtlpSink;
  readonly prometheus: Prometheus;
  readonly collector: Collector;
  /** Stops the collector, then Prometheus, then the sink. */
  stop(): Promise<void>;
}

export interface CollectorStackOptions {
  /** Send traces and logs to the sink too (collector-config/traces.yaml and logs.yaml). */
  readonly tracesAndLogs?: boolean;
  readonly processorToken?: string;
}

/** Starts the three; a failed start stops what had started, then throws. */
export async function startCollectorStack(options: CollectorStackOptions = {}): Promise<CollectorStack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    const sink = await startOtlpSink();
    stops.push(() => sink.close());
    const prometheus = await startPrometheus();
    stops.push(() => prometheus.stop());
    const collectorOptions: CollectorOptions = {
      processorEndpoint: sink.url,
      remoteWriteUrl: prometheus.remoteWriteUrl,
      ...(options.tracesAndLogs ? { tracesEndpoint: sink.url, logsEndpoint: sink.url } : {}),
      ...(options.processorToken === undefined ? {} : { processorToken: options.processorToken }),
    };
    const collector = await startCollector(collectorOptions);
    stops.push(() => collector.stop());
    return { sink, prometheus, collector, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
