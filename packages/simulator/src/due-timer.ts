/**
 * Runs a callback at an absolute `performance.now()` time. Every wait is computed from the target,
 * never from the previous wake-up, so a late timer delays one write and not the ones after it.
 *
 * Node's timers run on the event loop's millisecond clock and fire 0–1.5 ms after their due time on
 * an idle machine. With `spinMs > 0` the last `spinMs` before the target are waited with
 * `setImmediate`, which still serves I/O each turn: lateness falls to a few microseconds for up to
 * `spinMs` of CPU per wait.
 */
export interface DueTimer {
  cancel(): void;
}

export function runAt(target: number, callback: () => void, spinMs = 0): DueTimer {
  let timeout: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let cancelled = false;
  const check = () => {
    timeout = undefined;
    immediate = undefined;
    if (cancelled) return;
    const remaining = target - performance.now();
    if (remaining <= 0) {
      callback();
    } else if (remaining > spinMs) {
      // setTimeout takes at least 1 ms; a shorter remainder is waited as 1 ms.
      timeout = setTimeout(check, Math.max(1, remaining - spinMs));
    } else {
      immediate = setImmediate(check);
    }
  };
  check();
  return {
    cancel() {
      cancelled = true;
      if (timeout) clearTimeout(timeout);
      if (immediate) clearImmediate(immediate);
    },
  };
}
