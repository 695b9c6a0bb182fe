import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type LaneServer, startLane } from '@lanewatch/simulator';
import { createAdmissionController } from '../admission/admission-controller.ts';
import { UsageError } from '../cli/usage-error.ts';
import { DEFAULT_EVALUATION_CONFIG } from '../evaluation/evaluation-config.ts';
import type { LaneObservation } from '../lane-observation.ts';
import { laneMapOf, parseLanesFile } from '../lanes-file/lanes-file.ts';
import { startInstrumentedClient } from '../probe/instrumented-client.ts';
import { createLaneReader } from '../reader/lane-reader.ts';
import { htmlReport } from '../report/html-report.ts';
import { createAggregationWindows } from '../server/aggregation-windows.ts';
import { startProcessor } from '../server/processor.ts';
import { createFileStore, readLaneHealthDocument } from '../store/file-store.ts';
import { errorClass } from '../store/lane-health-store.ts';
import { SAFETY_MARGIN_S } from './demo-jobs.ts';
import { DEMO_LANES, demoLaneKnobs, demoLanesYaml } from './demo-lanes.ts';
import { DEMO_PROCESSOR, type DemoOptions } from './demo-options.ts';
import { type DemoResult, demoReportData, demoResult } from './demo-result.ts';
import { type DemoSnapshot, firstTextCostOf, meansOf } from './demo-snapshot.ts';
import { createDemoTally } from './demo-tally.ts';
import { startDemoTraffic } from './demo-traffic.ts';
import { renderPlainLines, renderScoreboard } from './scoreboard.ts';
import { terminalBoard } from './terminal-board.ts';

export interface DemoIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stopRequested: Promise<string>;
  /** The terminal's size when stdout is one (the board is redrawn in place); `undefined` when piped. */
  readonly terminal: (() => { columns: number; rows: number }) | undefined;
}

/** Plain lines are printed this often when stdout is not a terminal. */
const PLAIN_EVERY_MS = 5000;
/** Calls in flight at the end get this long to finish before they are cancelled. */
const DRAIN_MS = 1500;

/** Refuses to overwrite a lane-health file that holds lanes other than the demo's (a real store). */
async function clearOldDemoFile(path: string): Promise<void> {
  let lanes: string[];
  try {
    lanes = Object.keys(await readLaneHealthDocument(path));
  } catch {
    throw new UsageError(`${path} exists and is not a lane-health file; choose another --out directory`);
  }
  const demoNames = new Set(DEMO_LANES.map((l) => l.lane));
  const foreign = lanes.filter((lane) => !demoNames.has(lane));
  if (foreign.length > 0) {
    throw new UsageError(
      `${path} holds lanes that are not the demo's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); ` +
        'run the demo with --out DIR elsewhere so it does not replace them',
    );
  }
  // A fresh run: no hysteresis or baseline carried over from an earlier demo.
  await rm(path, { force: true });
}

/**
 * `lanewatch demo`: simulated lanes → instrumented calls → OTLP → the processor (in this process, on the
 * file store) → hints → `admit`, with a live scoreboard; at the end the report and the final records.
 */
export async function runDemo(options: DemoOptions, io: DemoIo): Promise<DemoResult> {
  const outDir = resolve(options.outDir);
  try {
    await mkdir(outDir, { recursive: true });
  } catch (error) {
    const code = (error as { code?: string }).code;
    // EEXIST: the path is a file; ENOTDIR: a part of it is.
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new UsageError(
        `${options.outSource} must be a directory; ${outDir} ${code === 'EEXIST' ? 'is a file' : 'has a file in its path'}`,
      );
    }
    throw error;
  }
  const healthPath = join(outDir, 'lane-health.json');
  const reportPath = join(outDir, 'lanewatch-report.html');
  await clearOldDemoFile(healthPath);
  const scale = options.timeScale;

  const servers: LaneServer[] = [];
  const closeServers = () => Promise.all(servers.map((s) => s.server.close().catch(() => undefined)));
  try {
    for (const lane of DEMO_LANES) {
      servers.push(
        await startLane(lane.profile, {
          seed: `${options.seed}:${lane.lane}`,
          knobs: demoLaneKnobs(lane, scale),
        }),
      );
    }
  } catch (error) {
    await closeServers();
    throw error;
  }
  const running = DEMO_LANES.map((demo, i) => ({ demo, url: (servers[i] as LaneServer).server.url }));
  const lanesFile = parseLanesFile(demoLanesYaml(running, scale, options.minSamples), 'lanewatch demo lanes');

  let storeError: string | undefined;
  const store = await createFileStore({
    path: healthPath,
    onError: (error) => {
      const kind = errorClass(error);
      if (kind !== storeError) io.stderr(`lanewatch demo: cannot write ${healthPath} (${kind})\n`);
      storeError = kind;
    },
  });
  const windows = createAggregationWindows({
    windowS: DEMO_PROCESSOR.windowS,
    sliceS: DEMO_PROCESSOR.sliceS,
  });
  let processor: Awaited<ReturnType<typeof startProcessor>>;
  try {
    processor = await startProcessor({
      port: options.port,
      host: '127.0.0.1',
      store,
      lanes: lanesFile,
      windows,
      intervalS: DEMO_PROCESSOR.intervalS,
      windowS: DEMO_PROCESSOR.windowS,
      config: { ...DEFAULT_EVALUATION_CONFIG, minSamples: options.minSamples, recordTtlS: 10 },
      log: (line) => io.stderr(`lanewatch demo: ${line}\n`),
    });
  } catch (error) {
    await closeServers();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      throw new UsageError(
        `cannot listen on 127.0.0.1:${options.port} (${code}); choose another --port or 0`,
      );
    }
    throw error;
  }

  const tally = createDemoTally();
  const client = startInstrumentedClient({
    lanes: laneMapOf(lanesFile),
    otlpEndpoint: processor.url,
    exportIntervalMs: DEMO_PROCESSOR.exportIntervalMs,
    onCall: (call) => tally.recordCall(call),
  });
  // Admission reads the hints the way another service would: from the lane-health file.
  const reader = await createLaneReader(`file:${healthPath}`);
  const admission = createAdmissionController({ reader, safetyMarginS: SAFETY_MARGIN_S * scale });
  const traffic = startDemoTraffic({
    lanes: running.map(({ demo, url }) => ({ lane: demo.lane, url, format: demo.format, model: demo.model })),
    client,
    admission,
    tally,
    ratePerLane: options.ratePerLane,
    jobRate: options.jobRate,
    seed: options.seed,
    timeScale: scale,
    jobsReady: () => processor.feed.snapshot().some((r) => r.state !== 'unknown'),
  });

  const started = performance.now();
  const snapshot = (observations?: readonly LaneObservation[]): DemoSnapshot => {
    const byLane = new Map(
      (observations ?? windows.observe(Date.now()).map((o) => o.window)).map((o) => [o.lane, o]),
    );
    return {
      elapsedS: (performance.now() - started) / 1000,
      timeScale: scale,
      processorUrl: processor.url,
      windowS: DEMO_PROCESSOR.windowS,
      intervalS: DEMO_PROCESSOR.intervalS,
      minSamples: options.minSamples,
      healthPath,
      lanes: running.map(({ demo, url }) => {
        const record = processor.feed.get(demo.lane);
        return {
          demo,
          url,
          record,
          means: meansOf(byLane.get(demo.lane)),
          firstTextCostS: firstTextCostOf(record),
          tally: tally.laneOf(demo.lane),
        };
      }),
      jobs: tally.jobs,
      calibration: admission.calibration(),
    };
  };

  const terminal = options.json ? undefined : io.terminal;
  const board = terminal ? terminalBoard(io.stdout, terminal) : undefined;
  const draw = () => {
    if (options.json) return;
    if (board && terminal) board.draw(renderScoreboard(snapshot(), terminal().columns));
    else io.stdout(`${renderPlainLines(snapshot()).join('\n')}\n`);
  };
  if (!options.json && !board) {
    io.stdout(
      `lanewatch demo: ${DEMO_LANES.length} simulated lanes, time scale ${scale}; processor ${processor.url}; ` +
        `a line per lane every ${PLAIN_EVERY_MS / 1000} s\n`,
    );
  }
  draw();
  const timer = setInterval(draw, board ? 1000 : PLAIN_EVERY_MS);

  const stoppedBy = await Promise.race([
    io.stopRequested,
    options.durationS === undefined
      ? new Promise<never>(() => {})
      : delay(options.durationS * 1000).then(() => 'duration'),
  ]);
  clearInterval(timer);
  if (board && terminal) {
    board.draw([
      ...renderScoreboard(snapshot(), terminal().columns),
      '',
      `stopping (${stoppedBy}): finishing the calls in flight, writing the last records…`,
    ]);
  }

  await traffic.stop(DRAIN_MS);
  await client.shutdown(); // exports the last points
  await processor.close(); // evaluates once more and writes lane-health.json
  await reader.close();
  const final = snapshot(windows.observe(Date.now()).map((o) => o.window));
  const durationS = final.elapsedS;
  await writeFile(
    reportPath,
    htmlReport(
      demoReportData(
        final,
        windows.observe(Date.now()).map((o) => o.window),
      ),
    ),
  );
  await closeServers();
  const result = demoResult(final, {
    durationS,
    stoppedBy,
    healthPath,
    reportPath,
    sliceS: DEMO_PROCESSOR.sliceS,
  });

  if (options.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else {
    if (board && terminal) board.draw(renderScoreboard(final, terminal().columns));
    else io.stdout(`${renderPlainLines(final).join('\n')}\n`);
    io.stdout(`\nwrote ${healthPath}\nwrote ${reportPath} — open it in a browser: file://${reportPath}\n`);
  }
  return result;
}
