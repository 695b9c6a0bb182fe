import { isLaneName, LANE_NAME_RULE } from './names.ts';

/**
 * Lanes by URL: a configured name for every request whose origin matches and whose path starts
 * with the prefix's path (at a segment boundary). The longest prefix wins.
 */
export type LaneMapInput = Readonly<Record<string, string | readonly string[]>> | readonly LaneRoute[];

export interface LaneRoute {
  readonly lane: string;
  readonly url: string;
}

export class LaneConfigError extends Error {
  override readonly name = 'LaneConfigError';
}

interface CompiledRoute {
  readonly lane: string;
  readonly origin: string;
  readonly pathPrefix: string;
}

export class LaneMap {
  readonly #routes: readonly CompiledRoute[];

  constructor(input: LaneMapInput | undefined) {
    this.#routes = routesOf(input)
      .map((route, i) => compile(route, i))
      .sort((a, b) => b.pathPrefix.length - a.pathPrefix.length);
  }

  get size(): number {
    return this.#routes.length;
  }

  /** The lane of a request, from its origin (`http://host:port`) and path (query already removed). */
  laneOf(origin: string, path: string): string | undefined {
    for (const route of this.#routes) {
      if (route.origin !== origin) continue;
      if (route.pathPrefix === '' || path === route.pathPrefix || path.startsWith(`${route.pathPrefix}/`)) {
        return route.lane;
      }
    }
    return undefined;
  }
}

const SHAPE =
  "lanes are { name: 'http://host:8000/v1' } (a URL prefix or a list of them per name) or [{ lane, url }]";

/** The routes `input` lists, each a lane name and a URL prefix as written; a wrong shape throws, saying what to write. */
function routesOf(input: unknown): LaneRoute[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') {
    throw new LaneConfigError(
      `${SHAPE}; a string like LANEWATCH_LANE_MAP's goes through parseLaneMapEnv() first`,
    );
  }
  if (typeof input !== 'object') throw new LaneConfigError(`${SHAPE}, not a ${typeof input}`);
  const routes: LaneRoute[] = [];
  if (Array.isArray(input)) {
    input.forEach((route: unknown, i) => {
      const { lane, url } = (route ?? {}) as { lane?: unknown; url?: unknown };
      if (typeof lane !== 'string' || typeof url !== 'string')
        throw new LaneConfigError(`lane map entry ${i + 1}: ${SHAPE}, with both lane and url strings`);
      routes.push({ lane, url });
    });
    return routes;
  }
  for (const [lane, urls] of Object.entries(input)) {
    const list: unknown[] = Array.isArray(urls) ? urls : [urls];
    for (const url of list) {
      if (typeof url !== 'string')
        throw new LaneConfigError(
          `${entryName(routes.length, lane)}: ${SHAPE}; this one's URL is not a string`,
        );
      routes.push({ lane, url });
    }
  }
  return routes;
}

/** An entry as a message names it: its lane too when that is a lane name (anything else may be a secret pasted in the wrong place). */
function entryName(index: number, lane: string): string {
  return isLaneName(lane) ? `lane map entry ${index + 1} ("${lane}")` : `lane map entry ${index + 1}`;
}

function compile(route: LaneRoute, index: number): CompiledRoute {
  const entry = entryName(index, route.lane);
  if (!isLaneName(route.lane)) {
    throw new LaneConfigError(`${entry}: the lane name must be ${LANE_NAME_RULE}`);
  }
  let url: URL;
  try {
    url = new URL(route.url);
  } catch {
    throw new LaneConfigError(`${entry}: the URL is not absolute; write it like http://host:8000/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LaneConfigError(`${entry}: only http and https URLs can be matched, got ${url.protocol}`);
  }
  if (url.search || url.username || url.password) {
    throw new LaneConfigError(
      `${entry}: a lane URL is an origin and a path prefix; remove the query or credentials`,
    );
  }
  return { lane: route.lane, origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, '') };
}

/**
 * Parses `LANEWATCH_LANE_MAP`: `name=url` pairs separated by commas or whitespace,
 * e.g. `fast=http://127.0.0.1:8001/v1, slow=https://api.example.com/v1`.
 */
export function parseLaneMapEnv(value: string | undefined): LaneRoute[] {
  if (!value?.trim()) return [];
  return value
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((pair, i) => {
      const eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new LaneConfigError(
          `LANEWATCH_LANE_MAP entry ${i + 1}: expected name=url (e.g. fast=http://127.0.0.1:8001/v1)`,
        );
      }
      return { lane: pair.slice(0, eq), url: pair.slice(eq + 1) };
    });
}

/**
 * `LANEWATCH_LANE_MAP` as a lane map input. A malformed value must not stop the application: it is
 * reported through `warn`, with what to fix, and lanes are named `provider/model` until it is fixed.
 */
export function laneMapFromEnv(value: string | undefined, warn: (message: string) => void): LaneRoute[] {
  try {
    const routes = parseLaneMapEnv(value);
    new LaneMap(routes);
    return routes;
  } catch (error) {
    if (!(error instanceof LaneConfigError)) throw error;
    warn(`lanewatch: ${error.message}; lanes are named provider/model until it is fixed`);
    return [];
  }
}
