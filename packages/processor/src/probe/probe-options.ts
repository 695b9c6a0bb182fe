import { isLaneName, LANE_NAME_RULE } from '@lanewatch/instrumentation/names';
import { UsageError } from '../cli/usage-error.ts';
import { type AwsSigning, awsSigningFor, BEDROCK_RUNTIME_HOST } from './aws-signing.ts';
import { countOf, type FlagSpec, parseFlags, secondsOf } from './command-flags.ts';
import { detectFormat, isProviderFormat, PROVIDER_FORMATS, type ProviderFormat } from './provider-request.ts';

export interface ProbeOptions {
  /** Origin and path only: a query string or credentials in the URL are refused, never kept. */
  readonly base: URL;
  readonly format: ProviderFormat;
  /** How the format was chosen, for the first line of output. */
  readonly formatSource: 'flag' | 'url' | 'assumed';
  readonly model: string;
  readonly apiKey: string | undefined;
  /**
   * Bedrock without an API key: AWS credentials from the standard variables, to sign each call
   * (Bedrock's runtime hosts only).
   */
  readonly awsSigning: AwsSigning | undefined;
  /** The variables that would hold the key, for the message on a 401/403. */
  readonly keyVariables: readonly string[];
  readonly samples: number;
  readonly intervalS: number;
  readonly timeoutS: number;
  /** 429 retries per sample. */
  readonly retries: number;
  readonly lane: string | undefined;
  readonly otlpEndpoint: string | undefined;
  readonly json: boolean;
}

export const PROBE_FLAGS = [
  {
    flag: '--base-url',
    env: 'LANEWATCH_PROBE_BASE_URL',
    help: 'the endpoint, e.g. https://api.openai.com/v1, http://127.0.0.1:11434',
  },
  { flag: '--model', env: 'LANEWATCH_PROBE_MODEL', help: 'model name as the endpoint knows it' },
  {
    flag: '--api-key',
    env: 'LANEWATCH_PROBE_API_KEY',
    help: "API key (prefer the variable: flags show in the process list); else the provider's own variable for its own host",
  },
  {
    flag: '--format',
    env: 'LANEWATCH_PROBE_FORMAT',
    help: `${PROVIDER_FORMATS.join(' | ')} (default: from the URL, else openai-chat)`,
  },
  { flag: '--samples', env: 'LANEWATCH_PROBE_SAMPLES', help: 'calls to measure (default 50)' },
  {
    flag: '--interval',
    env: 'LANEWATCH_PROBE_INTERVAL_S',
    help: "seconds from one sample's end (its call and any 429 retries) to the next one's start (default 1)",
  },
  {
    flag: '--timeout',
    env: 'LANEWATCH_PROBE_TIMEOUT_S',
    help: 'seconds before a call is given up as a timeout (default 60)',
  },
  {
    flag: '--retries',
    env: 'LANEWATCH_PROBE_RETRIES',
    help: 'retries of a sample answered 429, with backoff (default 5)',
  },
  {
    flag: '--lane',
    env: 'LANEWATCH_PROBE_LANE',
    help: 'lane name for the measurements (default provider/model)',
  },
  {
    flag: '--otlp-endpoint',
    env: 'LANEWATCH_PROBE_OTLP_ENDPOINT',
    help: 'also export the histograms over OTLP/HTTP: a collector or lanewatch serve (http://127.0.0.1:4320)',
  },
  { flag: '--json', env: undefined, help: 'print one JSON document instead of the table', switch: true },
] as const satisfies readonly (FlagSpec & { env: string | undefined; help: string })[];

/** Providers' own key variables, used only for their own hosts: a key is never sent to another server. */
const PROVIDER_KEY_VARIABLES: ReadonlyArray<readonly [RegExp, readonly string[]]> = [
  [/^api\.openai\.com$/, ['OPENAI_API_KEY']],
  [/(^|\.)anthropic\.com$/, ['ANTHROPIC_API_KEY']],
  [/^generativelanguage\.googleapis\.com$/, ['GEMINI_API_KEY', 'GOOGLE_API_KEY']],
  [/(^|\.)openrouter\.ai$/, ['OPENROUTER_API_KEY']],
  [/(^|\.)api\.groq\.com$/, ['GROQ_API_KEY']],
  [/(^|\.)api\.mistral\.ai$/, ['MISTRAL_API_KEY']],
  [/(^|\.)api\.deepseek\.com$/, ['DEEPSEEK_API_KEY']],
  [/(^|\.)api\.together\.xyz$/, ['TOGETHER_API_KEY']],
  [/(^|\.)ollama\.com$/, ['OLLAMA_API_KEY']],
  // cohere-ai's clients read CO_API_KEY, LangChain's ChatCohere COHERE_API_KEY.
  [/(^|\.)api\.cohere\.(com|ai)$/, ['CO_API_KEY', 'COHERE_API_KEY']],
  // An Amazon Bedrock API key, as the AWS SDKs read it.
  [BEDROCK_RUNTIME_HOST, ['AWS_BEARER_TOKEN_BEDROCK']],
];

export function providerKeyVariables(host: string): readonly string[] {
  return PROVIDER_KEY_VARIABLES.find(([pattern]) => pattern.test(host.toLowerCase()))?.[1] ?? [];
}

/** A base URL that can be used, or a `UsageError` that says what to fix (never echoing a secret). */
export function parseBaseUrl(raw: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(
      `${source} is not a URL: give the endpoint's base, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} must start with http:// or https://, e.g. https://api.openai.com/v1`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${source} must not carry credentials: pass the key in LANEWATCH_PROBE_API_KEY`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(
      `${source} must not carry a query string or fragment (keys do not belong in URLs): pass the key in LANEWATCH_PROBE_API_KEY`,
    );
  }
  return url;
}

/**
 * An OTLP/HTTP endpoint that can be used, or a `UsageError` that says what to fix (never echoing it).
 * Credentials go in a header: the exporter sends `OTEL_EXPORTER_OTLP_HEADERS` (and `…_METRICS_HEADERS`).
 */
export function parseOtlpEndpoint(raw: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(
      `${source} is not a URL: give the OTLP/HTTP receiver's base, e.g. http://127.0.0.1:4320 (lanewatch serve) or http://127.0.0.1:4318 (a collector)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `${source} must start with http:// or https:// (OTLP/HTTP), e.g. http://127.0.0.1:4320`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      `${source} must not carry credentials: remove them, and send them as a header in OTEL_EXPORTER_OTLP_HEADERS (e.g. authorization=Basic%20…)`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new UsageError(
      `${source} must not carry a query string or fragment: remove it (a key goes in a header, in OTEL_EXPORTER_OTLP_HEADERS)`,
    );
  }
  return url;
}

function helpRow(flag: string, env: string | undefined, help: string): string {
  return `  ${`${flag}${flag === '--json' ? '' : ' <value>'}`.padEnd(24)} ${(env ?? '').padEnd(30)} ${help}`;
}

export function probeHelp(): string {
  return [
    'Usage: lanewatch probe --base-url URL --model NAME [options]',
    '',
    "Measures an endpoint's streaming milestones (headers, first chunk, first output, first text, end)",
    'with a tiny fixed prompt, through the lanewatch instrumentation, and prints p50/p95/p99/max and',
    'error counts per milestone. Never prints the prompt, the response or the key.',
    '',
    `  ${'flag'.padEnd(24)} ${'variable'.padEnd(30)} meaning`,
    ...PROBE_FLAGS.map((f) => helpRow(f.flag, f.env, f.help)),
    '  --help                   this text',
    '',
    'Exit codes: 0 measured; 1 no call succeeded, or the OTLP export failed; 2 a bad option or a URL',
    'that cannot be reached (nothing listening, no such host, 404); 3 the key was refused (401/403).',
  ].join('\n');
}

/** Flags win over variables. Throws `UsageError` (exit 2) with what to fix. */
export function parseProbeOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ProbeOptions {
  const flags = parseFlags('probe', args, PROBE_FLAGS);
  const value = (flag: (typeof PROBE_FLAGS)[number]['flag']): { raw: string; source: string } | undefined => {
    const given = flags.get(flag);
    if (typeof given === 'string') return { raw: given, source: flag };
    const spec = PROBE_FLAGS.find((f) => f.flag === flag);
    const fromEnv = spec?.env === undefined ? undefined : env[spec.env];
    return fromEnv === undefined || fromEnv === ''
      ? undefined
      : { raw: fromEnv, source: spec?.env as string };
  };

  const baseRaw = value('--base-url');
  if (!baseRaw) {
    throw new UsageError(
      '--base-url is required (or LANEWATCH_PROBE_BASE_URL), e.g. https://api.openai.com/v1',
    );
  }
  const base = parseBaseUrl(baseRaw.raw, baseRaw.source);
  const model = value('--model');
  if (!model || model.raw.trim() === '') {
    throw new UsageError(
      '--model is required (or LANEWATCH_PROBE_MODEL): the model name the endpoint expects',
    );
  }

  const formatRaw = value('--format');
  let format: ProviderFormat;
  let formatSource: ProbeOptions['formatSource'];
  if (formatRaw) {
    if (!isProviderFormat(formatRaw.raw)) {
      throw new UsageError(
        `${formatRaw.source} must be one of ${PROVIDER_FORMATS.join(', ')}, got ${JSON.stringify(formatRaw.raw)}`,
      );
    }
    format = formatRaw.raw;
    formatSource = 'flag';
  } else {
    const detected = detectFormat(base);
    format = detected ?? 'openai-chat';
    formatSource = detected ? 'url' : 'assumed';
  }

  const providerVariables = providerKeyVariables(base.hostname);
  const keyVariables = ['LANEWATCH_PROBE_API_KEY', ...providerVariables];
  let apiKey: string | undefined;
  const keyFlag = flags.get('--api-key');
  if (typeof keyFlag === 'string' && keyFlag !== '') apiKey = keyFlag;
  else {
    for (const name of keyVariables) {
      const candidate = env[name];
      if (candidate !== undefined && candidate.trim() !== '') {
        apiKey = candidate.trim();
        break;
      }
    }
  }

  const awsSigning =
    apiKey === undefined && format === 'bedrock-converse' ? awsSigningFor(base, env) : undefined;

  const lane = value('--lane');
  if (lane && !isLaneName(lane.raw)) {
    throw new UsageError(`${lane.source} must be ${LANE_NAME_RULE}, got ${JSON.stringify(lane.raw)}`);
  }
  const otlp = value('--otlp-endpoint');
  if (otlp) parseOtlpEndpoint(otlp.raw, otlp.source);

  const samples = value('--samples');
  const interval = value('--interval');
  const timeout = value('--timeout');
  const retries = value('--retries');
  return {
    base,
    format,
    formatSource,
    model: model.raw.trim(),
    apiKey,
    awsSigning,
    keyVariables,
    samples: samples ? countOf(samples.raw, samples.source) : 50,
    intervalS: interval ? secondsOf(interval.raw, interval.source, { allowZero: true }) : 1,
    timeoutS: timeout ? secondsOf(timeout.raw, timeout.source) : 60,
    retries: retries ? countOf(retries.raw, retries.source, 0) : 5,
    lane: lane?.raw,
    otlpEndpoint: otlp?.raw.trim(),
    json: flags.get('--json') === true,
  };
}
