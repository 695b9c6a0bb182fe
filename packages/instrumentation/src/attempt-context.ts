import { type Context, context, createContextKey } from '@opentelemetry/api';

const ATTEMPT = createContextKey('lanewatch.attempt');

/**
 * Runs `fn` with the attempt number that lanewatch records on every call made inside it, for
 * callers whose own retry loop sends no `x-stainless-retry-count` header. Attempt 1 is the first try.
 */
export function withAttempt<T>(attempt: number, fn: () => T): T {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(
      `withAttempt: attempt must be a whole number from 1 (the first try), got ${attempt}`,
    );
  }
  return context.with(context.active().setValue(ATTEMPT, attempt), fn);
}

export function attemptFromContext(ctx: Context): number | undefined {
  const value = ctx.getValue(ATTEMPT);
  return typeof value === 'number' ? value : undefined;
}
