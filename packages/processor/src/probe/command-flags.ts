import { parseArgs } from 'node:util';
import { UsageError } from '../cli/usage-error.ts';

/** A flag of `demo` or `probe`: `--name value`, `--name=value`, or a switch. */
export interface FlagSpec {
  readonly flag: string;
  readonly switch?: boolean;
}

/**
 * `node:util`'s parser with lanewatch's wording: an unknown flag, a missing value or a stray argument
 * is a `UsageError` (exit 2) that names it and points at `--help`.
 */
export function parseFlags(
  command: string,
  args: readonly string[],
  specs: readonly FlagSpec[],
): Map<string, string | boolean> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const spec of specs) options[spec.flag.slice(2)] = { type: spec.switch ? 'boolean' : 'string' };
  options.help = { type: 'boolean' };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: withNegativeValues(args, specs),
      options,
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const flag = /'(-{1,2}[^'\s]*)/.exec((error as Error).message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new UsageError(`unknown option ${JSON.stringify(flag ?? '?')}; see lanewatch ${command} --help`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const isSwitch = flag === '--help' || specs.some((s) => s.flag === flag && s.switch);
      throw new UsageError(
        `${flag ?? 'an option'} ${isSwitch ? 'takes no value' : 'needs a value'}; see lanewatch ${command} --help`,
      );
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw new UsageError(`unexpected argument; lanewatch ${command} takes only --options (see --help)`);
    }
    throw error;
  }
  const values = new Map<string, string | boolean>();
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string' || typeof value === 'boolean') values.set(`--${name}`, value);
  }
  return values;
}

/**
 * `--jobs -1` as `--jobs=-1`: `node:util` takes a value that starts with "-" for an option, and would
 * report the flag as missing its value; a negative number is a value, to be judged by the flag's range.
 */
function withNegativeValues(args: readonly string[], specs: readonly FlagSpec[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = args[i + 1];
    const takesValue = specs.some((spec) => spec.flag === arg && spec.switch !== true);
    if (takesValue && next !== undefined && /^-(\d|\.\d|Infinity$)/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** A number of seconds above 0 (`--duration 30`, `--interval 0.5`). */
export function secondsOf(raw: string, source: string, { allowZero = false } = {}): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || (!allowZero && n === 0)) {
    throw new UsageError(
      `${source} must be a number of seconds ${allowZero ? 'from 0' : 'above 0'}, got ${JSON.stringify(raw)}`,
    );
  }
  return n;
}

/** A whole number from `min` (`--samples 50`). */
export function countOf(raw: string, source: string, min = 1): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) {
    throw new UsageError(`${source} must be a whole number, at least ${min}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}
