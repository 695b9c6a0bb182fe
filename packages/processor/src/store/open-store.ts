import { fileURLToPath } from 'node:url';
import { createFileStore } from './file-store.ts';
import type { LaneHealthStore, StoreErrorListener } from './lane-health-store.ts';
import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis-store.ts';

export class StoreUrlError extends Error {
  override readonly name = 'StoreUrlError';
}

export const DEFAULT_STORE_URL = 'file:./lane-health.json';

/** The path of a `file:` store URL: `file:./x.json` and `file:x.json` are relative, `file:///x.json` absolute. */
export function filePathOf(url: string): string {
  if (url.startsWith('file://')) return fileURLToPath(url);
  const path = url.slice('file:'.length);
  if (!path) throw new StoreUrlError(`store URL "${url}" names no file; write file:./lane-health.json`);
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
    `store URL "${url}" is not one of file:./lane-health.json, redis://host:6379 or memory:`,
  );
}
