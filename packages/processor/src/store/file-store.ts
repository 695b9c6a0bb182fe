import { unwatchFile, watchFile } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { LaneHealth } from '../evaluation/lane-health.ts';
import {
  errorClass,
  type LaneHealthStore,
  parseRecord,
  type StoreErrorListener,
  type StoreStatus,
} from './lane-health-store.ts';

/** The file's shape: one document holding every lane's latest record. */
export interface LaneHealthDocument {
  readonly schema: 'lanewatch.lane-health/v1';
  readonly written_at: string;
  readonly lanes: Readonly<Record<string, LaneHealth>>;
}

export interface FileStoreOptions {
  readonly path: string;
  readonly onError?: StoreErrorListener;
  /** How often `watch` looks at the file (ms); it is replaced, never edited, so a stat tells. */
  readonly watchIntervalMs?: number;
}

/** Reads a lane-health document; an absent file is an empty one. Throws on a file that is not one. */
export async function readLaneHealthDocument(path: string): Promise<Record<string, LaneHealth>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const doc = JSON.parse(text) as Partial<LaneHealthDocument>;
  const lanes: Record<string, LaneHealth> = {};
  for (const [lane, value] of Object.entries(doc.lanes ?? {})) {
    const record = parseRecord(JSON.stringify(value));
    if (record) lanes[lane] = record;
  }
  return lanes;
}

/**
 * The default store: one JSON document, replaced atomically. Each write goes to a temporary file in the
 * same directory, is fsynced, renamed over the document and the directory fsynced, so a reader opening
 * the path at any moment gets the whole old document or the whole new one, and a crash leaves one of
 * the two on disk. Writes are serialised; a write asked for during another one is merged into the next.
 */
export async function createFileStore(options: FileStoreOptions): Promise<LaneHealthStore> {
  const { path } = options;
  const records = new Map<string, LaneHealth>();
  try {
    for (const record of Object.values(await readLaneHealthDocument(path))) records.set(record.lane, record);
  } catch (error) {
    options.onError?.(error as Error);
  }
  let connected = true;
  let lastWriteAt: number | undefined;
  let lastError: string | undefined;
  let writing: Promise<void> | undefined;
  let again = false;
  let sequence = 0;
  const watchers = new Set<() => void>();

  async function writeDocument(): Promise<void> {
    const doc: LaneHealthDocument = {
      schema: 'lanewatch.lane-health/v1',
      written_at: new Date().toISOString(),
      lanes: Object.fromEntries(records),
    };
    const dir = dirname(path);
    const temporary = join(dir, `.${basename(path)}.${process.pid}.${++sequence}.tmp`);
    await mkdir(dir, { recursive: true });
    try {
      const file = await open(temporary, 'w', 0o644);
      try {
        await file.writeFile(`${JSON.stringify(doc, null, 2)}\n`);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    // The rename is durable only once the directory entry is (Linux; other systems may refuse).
    const directory = await open(dir, 'r').catch(() => undefined);
    await directory?.sync().catch(() => undefined);
    await directory?.close();
  }

  async function flush(): Promise<void> {
    do {
      again = false;
      try {
        await writeDocument();
        connected = true;
        lastWriteAt = Date.now();
        lastError = undefined;
      } catch (error) {
        connected = false;
        lastError = errorClass(error);
        options.onError?.(error as Error);
      }
    } while (again);
  }

  async function readAll(): Promise<LaneHealth[]> {
    try {
      return Object.values(await readLaneHealthDocument(path));
    } catch (error) {
      options.onError?.(error as Error);
      return [...records.values()];
    }
  }

  return {
    kind: 'file',
    async write(batch) {
      for (const record of batch) records.set(record.lane, record);
      if (writing) {
        again = true;
        return writing;
      }
      writing = flush().finally(() => {
        writing = undefined;
      });
      return writing;
    },
    readAll,
    async read(lane) {
      return (await readAll()).find((r) => r.lane === lane);
    },
    async watch(listener) {
      // Seen updated_at per lane: only records newer than what was seen are reported.
      const seen = new Map<string, string>();
      for (const record of await readAll()) seen.set(record.lane, record.updated_at);
      const check = async () => {
        let lanes: Record<string, LaneHealth>;
        try {
          lanes = await readLaneHealthDocument(path);
        } catch {
          return;
        }
        for (const record of Object.values(lanes)) {
          if (seen.get(record.lane) === record.updated_at) continue;
          seen.set(record.lane, record.updated_at);
          listener(record);
        }
      };
      const onChange = () => void check();
      watchFile(path, { interval: options.watchIntervalMs ?? 500, persistent: false }, onChange);
      const stop = () => unwatchFile(path, onChange);
      watchers.add(stop);
      return async () => {
        stop();
        watchers.delete(stop);
      };
    },
    status(): StoreStatus {
      return { kind: 'file', connected, lastWriteAt, lastError };
    },
    async close() {
      await writing;
      for (const stop of watchers) stop();
      watchers.clear();
    },
  };
}
