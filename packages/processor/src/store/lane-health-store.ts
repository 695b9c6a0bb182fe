import type { LaneHealth } from '../evaluation/lane-health.ts';

export type StoreKind = 'file' | 'redis' | 'memory';

export interface StoreStatus {
  readonly kind: StoreKind;
  /** Whether the last write reached the backing store (always true for memory). */
  readonly connected: boolean;
  /** Epoch ms of the last write that reached the backing store. */
  readonly lastWriteAt: number | undefined;
  /** Class of the last failure (`ECONNREFUSED`, `EACCES`, …), never a message with data in it. */
  readonly lastError: string | undefined;
}

/**
 * The lane-health store: where the processor puts each lane's latest record and where readers find it.
 * Records go in and come out as they are; whether a record is stale is the reader's verdict, made with
 * the reader's clock (see `reader/`).
 */
export interface LaneHealthStore {
  readonly kind: StoreKind;
  /**
   * Writes one evaluation round, merged over the lanes already there. Never rejects: a failure is
   * reported through `onError`, the records stay in memory and go out again on the next write or
   * reconnection.
   */
  write(records: readonly LaneHealth[]): Promise<void>;
  /** Every lane's latest record; from memory when the backing store cannot be reached. */
  readAll(): Promise<LaneHealth[]>;
  read(lane: string): Promise<LaneHealth | undefined>;
  /** Calls `listener` with every record written from now on; resolves to an unsubscribe function. */
  watch(listener: (record: LaneHealth) => void): Promise<() => Promise<void>>;
  status(): StoreStatus;
  close(): Promise<void>;
}

/** Where store failures go: the evaluation loop never sees them. */
export type StoreErrorListener = (error: Error) => void;

/** The class of an error for status and logs: its code or name, never its message. */
export function errorClass(error: unknown): string {
  if (error && typeof error === 'object') {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string') return code;
    if (typeof name === 'string') return name;
  }
  return 'Error';
}

/** Parses a stored record; `undefined` for anything that is not one (never throws). */
export function parseRecord(text: string): LaneHealth | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && typeof (value as LaneHealth).lane === 'string') {
      return value as LaneHealth;
    }
  } catch {
    // fall through: a record that cannot be read is no record
  }
  return undefined;
}
