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
    const routes: LaneRoute[] = [];
    if (Array.isArray(input)) routes.push(...(input as readonly LaneRoute[]));
    else if (input) {
      for (const [lane, urls] of Object.entries(
        input as Readonly<Record<string, string | readonly string[]>>,
      )) {
        for (const url of typeof urls === 'string' ? [urls] : urls) routes.push({ lane, url });
      }
    }
    this.#routes = routes
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

function compile(route: LaneRoute, index: number): CompiledRoute {
  const where = `lane map entry ${index + 1} ("${route.lane}")`;
  if (!isLaneName(route.lane)) {
    throw new LaneConfigError(`${where}: the lane name must be ${LANE_NAME_RULE}`);
  }
  let url: URL;
  try {
    url = new URL(route.url);
  } catch {
    throw new LaneConfigError(`${where}: the URL is not absolute; write it like http://host:8000/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LaneConfigError(`${where}: only http and https URLs can be matched, got ${url.protocol}`);
  }
  if (url.search || url.username || url.password) {
    throw new LaneConfigError(
      `${where}: a lane URL is an origin and a path prefix; remove the query or credentials`,
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
