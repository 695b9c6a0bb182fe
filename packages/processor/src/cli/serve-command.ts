import { DEFAULT_EVALUATION_CONFIG } from '../evaluation/evaluation-config.ts';
import { EMPTY_LANES_FILE, type LanesFile, loadLanesFile } from '../lanes-file/lanes-file.ts';
import { LanesFileError } from '../lanes-file/lanes-file-error.ts';
import { createAggregationWindows } from '../server/aggregation-windows.ts';
import { GrpcListenError, startProcessor } from '../server/processor.ts';
import { errorClass } from '../store/lane-health-store.ts';
import { openLaneHealthStore, shownStoreUrl } from '../store/open-store.ts';
import { MetricsExportConfigError, metricsExportFromEnv, printableUrl } from '../telemetry/export-config.ts';
import type { MetricsExportOptions } from '../telemetry/metrics-export.ts';
import type { CliContext, Command } from './cli-context.ts';
import { listenFailure } from './listen-address.ts';
import { readServeOptions, serveHelp } from './serve-options.ts';
import { UsageError } from './usage-error.ts';

/** `lanewatch serve`: the processor, until SIGINT/SIGTERM. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'receive OTLP metrics, evaluate lanes, write the lane-health store and serve the feed',
  async run(args: readonly string[], context: CliContext): Promise<number> {
    if (args.includes('--help') || args.includes('-h')) {
      context.stdout(`${serveHelp()}\n`);
      return 0;
    }
    const { options, sources } = readServeOptions(args, context.env);
    let metricsExport: MetricsExportOptions | undefined;
    try {
      metricsExport = metricsExportFromEnv(context.env, options.otlpEndpoint);
    } catch (error) {
      if (error instanceof MetricsExportConfigError) throw new UsageError(error.message);
      throw error;
    }
    let lanes: LanesFile = EMPTY_LANES_FILE;
    if (options.lanes !== undefined) {
      try {
        lanes = await loadLanesFile(options.lanes);
      } catch (error) {
        if (error instanceof LanesFileError) throw new UsageError(error.message);
        throw error;
      }
    }
    const log = (line: string) => context.stderr(`lanewatch: ${line}\n`);
    let lastStoreError: string | undefined;
    const store = await openLaneHealthStore(options.store, {
      onError: (error) => {
        // One line per change of failure, not one per evaluation round.
        const kind = errorClass(error);
        if (kind !== lastStoreError)
          log(`store ${shownStoreUrl(options.store)}: ${kind}; serving from memory`);
        lastStoreError = kind;
      },
    });
    let processor: Awaited<ReturnType<typeof startProcessor>>;
    try {
      processor = await startProcessor({
        port: options.port,
        grpcPort: options.grpcPort,
        host: options.host,
        store,
        lanes,
        windows: createAggregationWindows({ windowS: options.windowS, sliceS: options.sliceS }),
        intervalS: options.intervalS,
        windowS: options.windowS,
        config: {
          ...DEFAULT_EVALUATION_CONFIG,
          minSamples: options.minSamples,
          recordTtlS: options.recordTtlS,
        },
        bearerToken: options.token,
        log,
        metricsExport,
      });
    } catch (error) {
      // The store is open (a Redis client would keep the process alive): close it before saying why.
      await store.close().catch(() => undefined);
      const grpc = error instanceof GrpcListenError;
      throw (
        listenFailure(error, {
          port: (grpc ? options.grpcPort : options.port) ?? 0,
          hostSource: sources.host,
          portSource: grpc ? (sources.grpcPort ?? '--grpc-port') : sources.port,
        }) ?? error
      );
    }
    const ownMetrics = metricsExport
      ? `own metrics to ${printableUrl(metricsExport.url)} every ${(metricsExport.intervalMs ?? options.intervalS * 1000) / 1000} s`
      : 'own metrics not exported (no OTLP endpoint)';
    context.stdout(
      `lanewatch serve: listening on ${processor.url} (OTLP POST /v1/metrics, GET /v1/lanes, /v1/lanes/stream, /healthz); ` +
        (processor.grpcEndpoint === undefined ? '' : `OTLP/gRPC on ${processor.grpcEndpoint}; `) +
        `store ${store.kind}; ${lanes.lanes.size} configured lanes; evaluating every ${options.intervalS} s over ${options.windowS} s; ${ownMetrics}\n`,
    );
    const signal = await context.stopRequested;
    log(`${signal}: writing the last records`);
    await processor.close();
    return 0;
  },
};
