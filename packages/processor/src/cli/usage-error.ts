/** A mistake on the command line or in a `LANEWATCH_*` variable: printed as is, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const EXIT_USAGE = 2;
