import { parseArgs } from 'node:util';
import { DEFAULT_KNOBS, type LaneKnobs, laneKnobs } from './lane-knobs.ts';
import { isProfileName, PROFILE_NAMES } from './lane-profiles.ts';

export interface CliLane {
  readonly profile: string;
  /** 0: any free port. */
  readonly port: number;
  readonly seed: string;
}

export interface CliOptions {
  readonly lanes: readonly CliLane[];
  readonly host: string;
  readonly dialect: 'openai' | 'openrouter';
  readonly knobs: Partial<LaneKnobs>;
  readonly json: boolean;
  readonly list: boolean;
  readonly help: boolean;
}

export const USAGE = `Usage: lanewatch-simulator [options] PROFILE[:PORT] ...

Starts one local provider server per lane. Each speaks every wire format by path:
  /v1/chat/completions  /v1/responses  /v1/messages
  /v1beta/models/MODEL:streamGenerateContent?alt=sse  /api/chat  /api/generate
  .../publishers/anthropic/models/MODEL:streamRawPredict  (Vertex AI; mistralai too)
  /model/MODEL/invoke-with-response-stream  /model/MODEL/converse-stream  (Amazon Bedrock)

Options:
  --seed TEXT          base seed (default: none; each lane is seeded by its profile name)
  --host ADDRESS       listen address (default 127.0.0.1)
  --knob NAME=VALUE    override a knob on every lane (repeatable)
  --dialect openrouter Chat Completions as OpenRouter sends it (reasoning field, comment heartbeats)
  --json               print one JSON line per lane instead of a table
  --list               list the profiles and the knobs with their defaults
  -h, --help           this text

Profiles: ${PROFILE_NAMES.join(', ')}
Example: lanewatch-simulator steady:8001 spiky:8002 --seed 42`;

/** A command line that cannot run; the message says what to change. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

export function parseCliArgs(argv: readonly string[]): CliOptions {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const dialect = values.dialect ?? 'openai';
  if (dialect !== 'openai' && dialect !== 'openrouter') {
    throw new CliError(`--dialect must be "openai" or "openrouter", got "${dialect}"`);
  }
  const knobs: Record<string, unknown> = {};
  for (const assignment of values.knob ?? []) {
    const equals = assignment.indexOf('=');
    if (equals <= 0) throw new CliError(`--knob takes NAME=VALUE, got "${assignment}"`);
    const name = assignment.slice(0, equals);
    const text = assignment.slice(equals + 1);
    if (!(name in DEFAULT_KNOBS)) {
      throw new CliError(`--knob: unknown knob "${name}" (see --list)`);
    }
    const value = typeof DEFAULT_KNOBS[name as keyof LaneKnobs] === 'number' ? Number(text) : text;
    knobs[name] = value;
  }
  try {
    laneKnobs(knobs as Partial<LaneKnobs>, '--knob');
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
  const seen = new Map<string, number>();
  const lanes = positionals.map((spec): CliLane => {
    const [profile = '', portText, ...rest] = spec.split(':');
    if (!isProfileName(profile) || rest.length > 0) {
      throw new CliError(`"${spec}" is not PROFILE[:PORT] (profiles: ${PROFILE_NAMES.join(', ')})`);
    }
    const port = portText === undefined ? 0 : Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new CliError(`"${spec}": the port must be an integer from 0 to 65535`);
    }
    // Two lanes of one profile are two different lanes: seeded apart.
    const occurrence = seen.get(profile) ?? 0;
    seen.set(profile, occurrence + 1);
    const seed = [values.seed, profile, occurrence > 0 ? String(occurrence) : undefined]
      .filter(Boolean)
      .join(':');
    return { profile, port, seed };
  });
  const help = values.help === true;
  const list = values.list === true;
  if (lanes.length === 0 && !help && !list) throw new CliError('name at least one lane, e.g. steady:8001');
  return {
    lanes,
    host: values.host ?? '127.0.0.1',
    dialect,
    knobs: knobs as Partial<LaneKnobs>,
    json: values.json === true,
    list,
    help,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      seed: { type: 'string' },
      host: { type: 'string' },
      knob: { type: 'string', multiple: true },
      dialect: { type: 'string' },
      json: { type: 'boolean' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
