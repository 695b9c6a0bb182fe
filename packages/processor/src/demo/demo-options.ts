import { UsageError } from '../cli/usage-error.ts';
import { countOf, type FlagSpec, parseFlags, secondsOf } from '../probe/command-flags.ts';

export interface DemoOptions {
  /** Stop after this many seconds; `undefined`: run until Ctrl-C. */
  readonly durationS: number | undefined;
  readonly json: boolean;
  /** Multiplies every simulated duration: 0.5 runs the lanes twice as fast as their profiles. */
  readonly timeScale: number;
  /** Calls per second that reach each lane regardless of the jobs. */
  readonly ratePerLane: number;
  /** Jobs per second, each admitted or refused by `admit`. */
  readonly jobRate: number;
  /** Where `lane-health.json` and `lanewatch-report.html` are written. */
  readonly outDir: string;
  /** Where `outDir` came from (`--out` or `LANEWATCH_DEMO_OUT`), for messages about it. */
  readonly outSource: string;
  readonly seed: string;
  readonly minSamples: number;
  /** The processor's port (0: any free port). */
  readonly port: number;
}

/** The processor's settings in the demo: short enough that states appear within seconds of warm-up. */
export const DEMO_PROCESSOR = { windowS: 60, sliceS: 2, intervalS: 1, exportIntervalMs: 1000 } as const;

export const DEMO_FLAGS = [
  { flag: '--duration', env: undefined, help: 'stop after this many seconds (default: run until Ctrl-C)' },
  {
    flag: '--json',
    env: undefined,
    help: 'print one JSON document at the end, and nothing else, on stdout',
    switch: true,
  },
  {
    flag: '--time-scale',
    env: 'LANEWATCH_DEMO_TIME_SCALE',
    help: 'factor on every simulated duration: 0.5 runs the lanes 2× faster than their profiles, 1 at their own pace (default 0.5)',
  },
  { flag: '--rate', env: 'LANEWATCH_DEMO_RATE', help: 'calls per second to each lane (default 4)' },
  { flag: '--jobs', env: 'LANEWATCH_DEMO_JOBS', help: 'jobs per second through admit (default 3)' },
  {
    flag: '--out',
    env: 'LANEWATCH_DEMO_OUT',
    help: 'directory for lane-health.json and lanewatch-report.html (default .)',
  },
  {
    flag: '--seed',
    env: 'LANEWATCH_DEMO_SEED',
    help: 'seed of the simulated lanes and the jobs (default lanewatch)',
  },
  {
    flag: '--min-samples',
    env: 'LANEWATCH_MIN_SAMPLES',
    help: 'calls a lane needs in the window before it is judged (default 50)',
  },
  { flag: '--port', env: undefined, help: 'port of the in-process processor (default 0: any free port)' },
] as const satisfies readonly (FlagSpec & { env: string | undefined; help: string })[];

export function demoHelp(): string {
  const rows = DEMO_FLAGS.map(
    (f) =>
      `  ${`${f.flag}${f.flag === '--json' ? '' : ' <value>'}`.padEnd(22)} ${(f.env ?? '').padEnd(26)} ${f.help}`,
  );
  return [
    'Usage: lanewatch demo [options]',
    '',
    'Starts six simulated provider lanes (five wire formats), drives instrumented streaming calls and',
    'jobs with deadlines through admit, runs the processor in this process on the file store, and shows',
    'a live scoreboard. Writes lane-health.json and lanewatch-report.html. Ctrl-C stops it (exit 0).',
    '',
    `  ${'flag'.padEnd(22)} ${'variable'.padEnd(26)} meaning`,
    ...rows,
    '  --help                 this text',
    '',
    `The processor runs with a ${DEMO_PROCESSOR.windowS} s window in ${DEMO_PROCESSOR.sliceS} s slices, evaluating every ${DEMO_PROCESSOR.intervalS} s; the`,
    `instrumentation exports every ${DEMO_PROCESSOR.exportIntervalMs / 1000} s. Times on the scoreboard are measured, at the demo's time scale.`,
  ].join('\n');
}

function numberIn(raw: string, source: string, min: number, max: number, what: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`${source} must be ${what} from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

export function parseDemoOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): DemoOptions {
  const flags = parseFlags('demo', args, DEMO_FLAGS);
  const value = (flag: (typeof DEMO_FLAGS)[number]['flag']): { raw: string; source: string } | undefined => {
    const given = flags.get(flag);
    if (typeof given === 'string') return { raw: given, source: flag };
    const spec = DEMO_FLAGS.find((f) => f.flag === flag);
    const fromEnv = spec?.env === undefined ? undefined : env[spec.env];
    return fromEnv === undefined || fromEnv === ''
      ? undefined
      : { raw: fromEnv, source: spec?.env as string };
  };
  const duration = value('--duration');
  const scale = value('--time-scale');
  const rate = value('--rate');
  const jobs = value('--jobs');
  const minSamples = value('--min-samples');
  const port = value('--port');
  const seed = value('--seed');
  const out = value('--out');
  if (port && (!/^\d+$/.test(port.raw) || Number(port.raw) > 65535)) {
    throw new UsageError(
      `${port.source} must be a port number from 0 to 65535, got ${JSON.stringify(port.raw)}`,
    );
  }
  return {
    durationS: duration ? secondsOf(duration.raw, duration.source) : undefined,
    json: flags.get('--json') === true,
    timeScale: scale ? numberIn(scale.raw, scale.source, 0.05, 10, 'a factor') : 0.5,
    ratePerLane: rate ? numberIn(rate.raw, rate.source, 0.1, 100, 'calls per second') : 4,
    jobRate: jobs ? numberIn(jobs.raw, jobs.source, 0, 100, 'jobs per second') : 3,
    outDir: out?.raw ?? '.',
    outSource: out?.source ?? '--out',
    seed: seed?.raw ?? 'lanewatch',
    minSamples: minSamples ? countOf(minSamples.raw, minSamples.source) : 50,
    port: port ? Number(port.raw) : 0,
  };
}
