import { fileURLToPath } from 'node:url';
import { printableUrl } from '../telemetry/export-config.ts';
import { createFileStore } from './file-store.ts';
import type { LaneHealthStore, StoreErrorListener } from './lane-health-store.ts';
import { createMemoryStore } from './memory-store.ts';
import { parseRedisUrl } from './redis-layout.ts';
import { createRedisStore } from './redis-store.ts';

export class StoreUrlError extends Error {
  override readonly name = 'StoreUrlError';
}

export const DEFAULT_STORE_URL = 'file:./lane-health.json';

/**
 * A store URL as a message may show it: a `redis://` or `rediss://` URL by its host, port and
 * database only — never its user, password or query (`redis://host:6379/0`); `file:` and `memory:` as
 * written; anything else by its scheme alone, since a value in the wrong place may be a secret.
 */
export function shownStoreUrl(url: string): string {
  if (url.startsWith('file:') || url === 'memory:') return url;
  if (/^rediss?:\/\//.test(url) && URL.canParse(url)) return printableUrl(url);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]{0,15}:/.exec(url)?.[0];
  return scheme === undefined ? 'a value that is not a URL' : `a ${scheme} URL`;
}

/**
 * Why `url` cannot name a store, said without showing it (see `shownStoreUrl`), or undefined when it
 * can: `file:PATH`, `memory:`, or a `redis://`/`rediss://` URL that parses, with a valid `?prefix=`.
 */
export function storeUrlProblem(url: string): string | undefined {
  if ((url.startsWith('file:') && url.length > 'file:'.length) || url === 'memory:') return undefined;
  if (/^rediss?:\/\//.test(url)) {
    if (!URL.canParse(url)) return 'a redis:// URL that parses, like redis://host:6379/0';
    try {
      parseRedisUrl(url);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      return 'a redis:// URL whose ?prefix= is 1–64 letters, digits, "_", ".", ":" or "-" (it becomes the {hash tag})';
    }
    return undefined;
  }
  return `file:PATH, redis://host:6379 or memory:, not ${shownStoreUrl(url)}`;
}

/** The path of a `file:` store URL: `file:./x.json` and `file:x.json` are relative, `file:///x.json` absolute. */
export function filePathOf(url: string): string {
  if (url.startsWith('file://')) return fileURLToPath(url);
  const path = url.slice('file:'.length);
  if (!path) throw new StoreUrlError('store URL "file:" names no file; write file:./lane-health.json');
  return path;
}

/**
 * Opens the store a URL names: `file:./lane-health.json` (default), `redis://host:6379[/db][?prefix=…]`
 * or `rediss://…`, `memory:`.
 */
export async function openLaneHealthStore(
  url: string,
  options: { onError?: StoreErrorListener; retentionS?: number; readOnly?: boolean } = {},
): Promise<LaneHealthStore> {
  if (url.startsWith('file:')) {
    return createFileStore({
      path: filePathOf(url),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }
  if (url.startsWith('redis://') || url.startsWith('rediss://')) return createRedisStore({ url, ...options });
  if (url === 'memory:') return createMemoryStore();
  throw new StoreUrlError(
    `store URL ${shownStoreUrl(url)} is not one of file:./lane-health.json, redis://host:6379 or memory:`,
  );
}
