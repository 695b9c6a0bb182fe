import { DEFAULT_EVALUATION_CONFIG } from '../evaluation/evaluation-config.ts';
import { DEFAULT_STORE_URL, storeUrlProblem } from '../store/open-store.ts';
import { listenHostProblem } from './listen-address.ts';
import { UsageError } from './usage-error.ts';

export interface ServeOptions {
  readonly port: number;
  readonly grpcPort: number | undefined;
  readonly host: string;
  readonly store: string;
  readonly lanes: string | undefined;
  readonly intervalS: number;
  readonly windowS: number;
  readonly sliceS: number;
  readonly minSamples: number;
  readonly recordTtlS: number;
  readonly token: string | undefined;
  readonly otlpEndpoint: string | undefined;
}

type Kind = 'port' | 'host' | 'seconds' | 'count' | 'string' | 'store' | 'url';

/** Every option of `lanewatch serve`: flag, variable, default — the README's table is this list. */
export const SERVE_OPTIONS = [
  {
    key: 'port',
    flag: '--port',
    env: 'LANEWATCH_PORT',
    kind: 'port',
    default: '4320',
    help: 'HTTP port for OTLP in and lanes out (0: any free port)',
  },
  {
    key: 'grpcPort',
    flag: '--grpc-port',
    env: 'LANEWATCH_GRPC_PORT',
    kind: 'port',
    default: undefined,
    help: 'OTLP/gRPC port for metrics in (MetricsService/Export; what scale-out.yaml sends), same --host (0: any free port; default none: no gRPC listener)',
  },
  {
    key: 'host',
    flag: '--host',
    env: 'LANEWATCH_HOST',
    kind: 'host',
    default: '127.0.0.1',
    help: 'address to listen on (0.0.0.0 for every interface)',
  },
  {
    key: 'store',
    flag: '--store',
    env: 'LANEWATCH_STORE',
    kind: 'store',
    default: DEFAULT_STORE_URL,
    help: 'lane-health store: file:PATH, redis://host:6379[/db][?prefix=NAME], rediss://… (TLS) or memory:',
  },
  {
    key: 'lanes',
    flag: '--lanes',
    env: 'LANEWATCH_LANES',
    kind: 'string',
    default: undefined,
    help: 'lanes file (YAML): scorecards, overrides, URL prefixes',
  },
  {
    key: 'intervalS',
    flag: '--interval',
    env: 'LANEWATCH_INTERVAL_S',
    kind: 'seconds',
    default: '10',
    help: 'seconds between evaluations',
  },
  {
    key: 'windowS',
    flag: '--window',
    env: 'LANEWATCH_WINDOW_S',
    kind: 'seconds',
    default: '300',
    help: 'sliding window, seconds',
  },
  {
    key: 'sliceS',
    flag: '--slice',
    env: 'LANEWATCH_SLICE_S',
    kind: 'seconds',
    default: '10',
    help: 'window slice, seconds (the window is made of slices)',
  },
  {
    key: 'minSamples',
    flag: '--min-samples',
    env: 'LANEWATCH_MIN_SAMPLES',
    kind: 'count',
    default: String(DEFAULT_EVALUATION_CONFIG.minSamples),
    help: 'calls a window needs before a lane is judged',
  },
  {
    key: 'recordTtlS',
    flag: '--ttl',
    env: 'LANEWATCH_RECORD_TTL_S',
    kind: 'seconds',
    default: undefined,
    help: 'record lifetime, seconds (default: max(60, 3 × interval))',
  },
  {
    key: 'token',
    flag: '--token',
    env: 'LANEWATCH_TOKEN',
    kind: 'string',
    default: undefined,
    help: 'bearer token required on POST /v1/metrics and OTLP/gRPC (authorization metadata)',
  },
  {
    key: 'otlpEndpoint',
    flag: '--otlp-endpoint',
    env: 'LANEWATCH_OTLP_ENDPOINT',
    kind: 'url',
    default: undefined,
    help: "OTLP/HTTP base URL for the processor's own metrics (/v1/metrics appended); else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (used as is), else OTEL_EXPORTER_OTLP_ENDPOINT (/v1/metrics appended); none: not exported",
  },
] as const satisfies readonly {
  key: keyof ServeOptions;
  flag: string;
  env: string;
  kind: Kind;
  default: string | undefined;
  help: string;
}[];

function parseValue(kind: Kind, raw: string, source: string): number | string {
  const bad = (what: string) => new UsageError(`${source} must be ${what}, got ${JSON.stringify(raw)}`);
  switch (kind) {
    case 'port': {
      const n = Number(raw);
      if (!/^\d+$/.test(raw) || n > 65535) throw bad('a port number from 0 to 65535');
      return n;
    }
    case 'seconds': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) throw bad('a number of seconds above 0');
      return n;
    }
    case 'count': {
      if (!/^\d+$/.test(raw) || Number(raw) < 1) throw bad('a whole number, at least 1');
      return Number(raw);
    }
    case 'store': {
      // Never echoed: a redis:// URL may carry a password.
      const problem = storeUrlProblem(raw);
      if (problem !== undefined) throw new UsageError(`${source} must be ${problem}`);
      return raw;
    }
    case 'host': {
      // Never echoed: a value in the wrong place may be a URL with a password, or a key.
      const problem = listenHostProblem(raw);
      if (problem !== undefined) throw new UsageError(`${source} must be ${problem}`);
      return raw;
    }
    case 'string':
      if (raw === '') throw bad('a non-empty value');
      return raw;
    case 'url': {
      // Not echoed: a URL may carry a user, a password or a key in its query.
      const protocol = URL.canParse(raw) ? new URL(raw).protocol : undefined;
      if (protocol === undefined || !/^https?:$/.test(protocol)) {
        const got = protocol === undefined ? 'a value that is not a URL' : `a ${protocol} URL`;
        throw new UsageError(`${source} must be an http:// or https:// URL, got ${got}`);
      }
      return raw;
    }
  }
}

/**
 * The options and where each came from: the flag or `LANEWATCH_*` variable that set it, `undefined`
 * when it is the default — for messages that must name what to change.
 */
export interface ServeSettings {
  readonly options: ServeOptions;
  readonly sources: Readonly<Record<keyof ServeOptions, string | undefined>>;
}

/** Flags win over `LANEWATCH_*` variables, which win over defaults. `--flag value` and `--flag=value`. */
export function readServeOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeSettings {
  const values = new Map<string, { raw: string; source: string }>();
  for (const option of SERVE_OPTIONS) {
    const fromEnv = env[option.env];
    if (fromEnv !== undefined && fromEnv !== '') values.set(option.key, { raw: fromEnv, source: option.env });
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const option = SERVE_OPTIONS.find((o) => o.flag === flag);
    if (!option) throw new UsageError(`unknown option ${JSON.stringify(flag)}; see lanewatch serve --help`);
    const raw = eq > 0 ? arg.slice(eq + 1) : args[++i];
    if (raw === undefined) throw new UsageError(`${flag} needs a value; see lanewatch serve --help`);
    values.set(option.key, { raw, source: flag });
  }
  const out: Record<string, number | string | undefined> = {};
  const sources: Record<string, string | undefined> = {};
  for (const option of SERVE_OPTIONS) {
    const given = values.get(option.key);
    const raw = given?.raw ?? option.default;
    out[option.key] =
      raw === undefined ? undefined : parseValue(option.kind, raw, given?.source ?? option.flag);
    sources[option.key] = given?.source;
  }
  const options = out as unknown as Omit<ServeOptions, 'recordTtlS'> & { recordTtlS: number | undefined };
  // Each value named by where it came from: the user may have set only one of the two.
  const named = (key: 'windowS' | 'sliceS', flag: string) =>
    `${sources[key] ?? `the default ${flag}`} (${options[key]} s)`;
  const windowNamed = named('windowS', '--window');
  const sliceNamed = named('sliceS', '--slice');
  if (options.grpcPort !== undefined && options.grpcPort !== 0 && options.grpcPort === options.port) {
    const portNamed = sources.port ?? 'the default --port';
    throw new UsageError(
      `${sources.grpcPort} (${options.grpcPort}) must differ from ${portNamed} (${options.port}): OTLP/gRPC needs a port of its own`,
    );
  }
  if (options.sliceS > options.windowS) {
    throw new UsageError(`${sliceNamed} must not be longer than ${windowNamed}`);
  }
  // The windows slide by whole slices of whole seconds.
  if (
    !Number.isInteger(options.sliceS) ||
    !Number.isInteger(options.windowS) ||
    options.windowS % options.sliceS !== 0
  ) {
    throw new UsageError(`${windowNamed} must be a whole number of ${sliceNamed}, both whole seconds`);
  }
  return {
    options: { ...options, recordTtlS: options.recordTtlS ?? Math.max(60, 3 * options.intervalS) },
    sources: sources as Record<keyof ServeOptions, string | undefined>,
  };
}

/** `readServeOptions` without the sources. */
export function parseServeOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeOptions {
  return readServeOptions(args, env).options;
}

export function serveHelp(): string {
  const rows = SERVE_OPTIONS.map(
    (o) =>
      `  ${`${o.flag} <value>`.padEnd(22)} ${o.env.padEnd(24)} ${o.help}${o.default === undefined ? '' : ` (default ${o.default})`}`,
  );
  return [
    'Usage: lanewatch serve [options]',
    '',
    'Receives OTLP/HTTP metrics at POST /v1/metrics (and OTLP/gRPC with --grpc-port), evaluates every',
    'lane each interval, writes the lane-health store and serves GET /v1/lanes, /v1/lanes/{lane},',
    '/v1/lanes/stream (SSE) and /healthz.',
    '',
    `  ${'flag'.padEnd(22)} ${'variable'.padEnd(24)} meaning`,
    ...rows,
    '  --help                 this text',
    '',
    'A bad value exits with code 2. SIGINT/SIGTERM: one last evaluation is written, then exit 0.',
  ].join('\n');
}
