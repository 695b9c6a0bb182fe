import { readFile } from 'node:fs/promises';
import { isLaneName, LANE_NAME_RULE, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument, type YAMLMap } from 'yaml';
import { DEFAULT_SCORECARD } from '../evaluation/evaluate-lane.ts';
import type { LaneEvaluationConfig } from '../evaluation/evaluation-config.ts';
import type { LaneScorecard } from '../evaluation/lane-health.ts';
import { printableUrl } from '../telemetry/export-config.ts';
import { LanesFileError, type LanesFileProblem } from './lanes-file-error.ts';

/** Per-lane evaluation overrides; also allowed under `defaults:` for every lane. */
export interface LaneOverrides {
  readonly minSamples?: number;
  readonly p95BudgetS?: Readonly<Partial<Record<Milestone, number>>>;
  readonly cutoffMultiplier?: number;
}

export interface LaneDefinition extends LaneOverrides {
  readonly name: string;
  /** URL prefixes (origin + path) of the lane's calls, for the instrumentation's lane map. */
  readonly match: readonly string[];
  readonly scorecard: LaneScorecard;
  /** Line of the lane's entry, for messages about it. */
  readonly line: number;
}

export interface LanesFile {
  readonly file: string;
  readonly defaults: LaneOverrides;
  readonly lanes: ReadonlyMap<string, LaneDefinition>;
}

export const EMPTY_LANES_FILE: LanesFile = { file: '(none)', defaults: {}, lanes: new Map() };

const OVERRIDE_FIELDS = ['min_samples', 'p95_budget_s', 'cutoff_multiplier'] as const;
const LANE_FIELDS = ['match', 'can_hold_secret', 'offline_capable', 'handoff_s', 'rank', ...OVERRIDE_FIELDS];

/** Reads and validates a lanes file; throws `LanesFileError` naming the file, line and field. */
export async function loadLanesFile(path: string): Promise<LanesFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new LanesFileError([
      {
        file: path,
        line: 0,
        field: '',
        message: `cannot read the lanes file (${code}); check LANEWATCH_LANES / --lanes`,
      },
    ]);
  }
  return parseLanesFile(text, path);
}

export function parseLanesFile(text: string, file: string): LanesFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problems: LanesFileProblem[] = [];
  const lineOf = (node: Node | null | undefined): number =>
    node?.range ? lineCounter.linePos(node.range[0]).line : 0;
  const problem = (node: Node | null | undefined, field: string, message: string) =>
    problems.push({ file, line: lineOf(node), field, message });

  for (const error of doc.errors) {
    problems.push({
      file,
      line: lineCounter.linePos(error.pos[0]).line,
      field: '',
      message: `not valid YAML: ${error.message.split('\n')[0]}`,
    });
  }
  if (problems.length > 0) throw new LanesFileError(problems);

  const root = doc.contents;
  if (!isMap(root)) {
    problem(root, '', 'expected a mapping with a "lanes" key (see lanes.example.yaml)');
    throw new LanesFileError(problems);
  }
  let defaults: LaneOverrides = {};
  const lanes = new Map<string, LaneDefinition>();
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as Node | null;
    if (key === 'defaults') {
      if (!isMap(value)) problem(value ?? (pair.key as Node), 'defaults', '"defaults" must be a mapping');
      else defaults = readOverrides(value, '', [...OVERRIDE_FIELDS], problem);
    } else if (key === 'lanes') {
      if (!isMap(value)) {
        problem(
          value ?? (pair.key as Node),
          'lanes',
          '"lanes" must be a mapping of lane name to its settings',
        );
        continue;
      }
      for (const lanePair of value.items) {
        const name = isScalar(lanePair.key) ? String(lanePair.key.value) : '';
        const laneNode = lanePair.value as Node | null;
        if (!isLaneName(name)) {
          problem(lanePair.key as Node, name, `lane name "${name}" must be ${LANE_NAME_RULE}`);
          continue;
        }
        if (!isMap(laneNode)) {
          problem(
            laneNode ?? (lanePair.key as Node),
            name,
            `lane "${name}" must be a mapping of its settings`,
          );
          continue;
        }
        const lane = readLane(name, laneNode, lineOf(lanePair.key as Node), problem);
        if (lane) lanes.set(name, lane);
      }
    } else {
      problem(
        pair.key as Node,
        key,
        `unknown top-level key "${key}"; expected "lanes" and optionally "defaults"`,
      );
    }
  }
  if (problems.length > 0) throw new LanesFileError(problems);
  return { file, defaults, lanes };
}

type Report = (node: Node | null | undefined, field: string, message: string) => void;

function readLane(name: string, map: YAMLMap, line: number, problem: Report): LaneDefinition | undefined {
  const fields = fieldsOf(map, LANE_FIELDS, problem);
  const overrides = readOverrides(map, '', [...OVERRIDE_FIELDS], problem, fields);
  const bool = (field: string): boolean | undefined => {
    const node = fields.get(field);
    if (!node) return undefined;
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    problem(node, field, `"${field}" must be true or false, got ${shown(node)}`);
    return undefined;
  };
  const number = (field: string, what: string, check: (n: number) => boolean): number | undefined => {
    const node = fields.get(field);
    if (!node) return undefined;
    if (isScalar(node) && typeof node.value === 'number' && check(node.value)) return node.value;
    problem(node, field, `"${field}" must be ${what}, got ${shown(node)}`);
    return undefined;
  };
  const match: string[] = [];
  const matchNode = fields.get('match');
  if (matchNode) {
    const items = isSeq(matchNode) ? matchNode.items : [matchNode];
    for (const [index, item] of (items as Node[]).entries()) {
      const url = isScalar(item) && typeof item.value === 'string' ? item.value : undefined;
      const reason = url === undefined ? 'is not a string' : urlProblem(url);
      if (reason)
        problem(
          item,
          'match',
          `"match" entries must be URL prefixes like http://127.0.0.1:8000/v1; ${shownEntry(url, index)} ${reason}`,
        );
      else if (url !== undefined) match.push(url);
    }
  }
  return {
    name,
    line,
    match,
    ...overrides,
    scorecard: {
      can_hold_secret: bool('can_hold_secret') ?? DEFAULT_SCORECARD.can_hold_secret,
      offline_capable: bool('offline_capable') ?? DEFAULT_SCORECARD.offline_capable,
      handoff_s: number('handoff_s', 'a number of seconds', (n) => n >= 0 && Number.isFinite(n)) ?? 0,
      rank: number('rank', 'a whole number (lower is preferred)', Number.isInteger) ?? DEFAULT_SCORECARD.rank,
      source: 'lanes_file',
    },
  };
}

function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not an absolute URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'is not http or https';
  if (parsed.search || parsed.username || parsed.password)
    return 'carries a query or credentials; remove them';
  return undefined;
}

/**
 * A `match` entry as a message may show it: by its position, with scheme, host and path when it is an
 * http(s) URL — never its user, password or query, nor a value that is not a URL (it may be a key).
 */
function shownEntry(url: string | undefined, index: number): string {
  const position = `entry ${index + 1}`;
  if (url === undefined || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return position;
  return `${position} (${printableUrl(url)})`;
}

function fieldsOf(map: YAMLMap, allowed: readonly string[], problem: Report): Map<string, Node> {
  const fields = new Map<string, Node>();
  for (const pair of map.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!allowed.includes(key)) {
      const named = /^[a-z0-9_]{1,40}$/.test(key) ? `"${key}"` : '(a name that is not shown)';
      problem(pair.key as Node, key, `unknown field ${named}; expected one of ${allowed.join(', ')}`);
      continue;
    }
    fields.set(key, (pair.value as Node | null) ?? (pair.key as Node));
  }
  return fields;
}

function readOverrides(
  map: YAMLMap,
  prefix: string,
  allowed: readonly string[],
  problem: Report,
  known?: Map<string, Node>,
): LaneOverrides {
  const fields = known ?? fieldsOf(map, allowed, problem);
  const out: {
    minSamples?: number;
    p95BudgetS?: Partial<Record<Milestone, number>>;
    cutoffMultiplier?: number;
  } = {};
  const minSamples = fields.get('min_samples');
  if (minSamples) {
    if (isScalar(minSamples) && Number.isInteger(minSamples.value) && (minSamples.value as number) >= 1) {
      out.minSamples = minSamples.value as number;
    } else
      problem(
        minSamples,
        `${prefix}min_samples`,
        `"min_samples" must be a whole number of calls, at least 1, got ${shown(minSamples)}`,
      );
  }
  const multiplier = fields.get('cutoff_multiplier');
  if (multiplier) {
    if (isScalar(multiplier) && typeof multiplier.value === 'number' && multiplier.value >= 1) {
      out.cutoffMultiplier = multiplier.value;
    } else
      problem(
        multiplier,
        `${prefix}cutoff_multiplier`,
        `"cutoff_multiplier" must be a number, at least 1, got ${shown(multiplier)}`,
      );
  }
  const budgets = fields.get('p95_budget_s');
  if (budgets) {
    if (!isMap(budgets)) {
      problem(
        budgets,
        'p95_budget_s',
        `"p95_budget_s" must map milestones (${MILESTONES.join(', ')}) to seconds`,
      );
    } else {
      const parsed: Partial<Record<Milestone, number>> = {};
      for (const pair of budgets.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '';
        const node = pair.value as Node | null;
        const field = `p95_budget_s.${key}`;
        if (!(MILESTONES as readonly string[]).includes(key)) {
          problem(
            pair.key as Node,
            field,
            `"${field}": unknown milestone; expected one of ${MILESTONES.join(', ')}`,
          );
        } else if (isScalar(node) && typeof node.value === 'number' && node.value > 0) {
          parsed[key as Milestone] = node.value;
        } else {
          problem(
            node ?? (pair.key as Node),
            field,
            `"${field}" must be a number of seconds above 0, got ${shown(node)}`,
          );
        }
      }
      out.p95BudgetS = parsed;
    }
  }
  return out;
}

/**
 * A value as a message may show it: a number, a boolean, or a short lowercase word or two, as a
 * mistyped setting is; not anything else — a key pasted into the wrong field is longer or mixed-case.
 */
function shown(node: Node | null | undefined): string {
  if (!node) return 'nothing';
  if (isScalar(node)) {
    const { value } = node;
    if (typeof value === 'string' && !/^[a-z0-9 ._/-]{0,24}$/.test(value)) return 'a value that is not shown';
    return JSON.stringify(value) ?? String(value);
  }
  if (isSeq(node)) return 'a list';
  if (isMap(node)) return 'a mapping';
  return 'something else';
}

/** The scorecard of a lane: from the file, or the conservative default for a lane it does not name. */
export function scorecardOf(lanes: LanesFile, lane: string): LaneScorecard {
  return lanes.lanes.get(lane)?.scorecard ?? DEFAULT_SCORECARD;
}

/** The evaluation config of a lane: the process-wide one, then `defaults:`, then the lane's own overrides. */
export function evaluationConfigOf(
  lanes: LanesFile,
  lane: string,
  base: LaneEvaluationConfig,
): LaneEvaluationConfig {
  const own = lanes.lanes.get(lane);
  return {
    ...base,
    minSamples: own?.minSamples ?? lanes.defaults.minSamples ?? base.minSamples,
    cutoffMultiplier: own?.cutoffMultiplier ?? lanes.defaults.cutoffMultiplier ?? base.cutoffMultiplier,
    p95BudgetS: { ...base.p95BudgetS, ...lanes.defaults.p95BudgetS, ...own?.p95BudgetS },
  };
}

/**
 * The URL-prefix → lane table in the shape the instrumentation's lane map takes
 * (`LanewatchInstrumentation({ lanes })`), so one lanes file names lanes at both ends.
 */
export function laneMapOf(lanes: LanesFile): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const lane of lanes.lanes.values()) if (lane.match.length > 0) map[lane.name] = [...lane.match];
  return map;
}
