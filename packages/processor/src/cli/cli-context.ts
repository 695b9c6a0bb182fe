/** What a subcommand gets: its arguments, the environment and where to write. Tests pass their own. */
export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); long-running commands wait on it. */
  readonly stopRequested: Promise<string>;
}

export interface Command {
  readonly name: string;
  /** One line for `lanewatch --help`. */
  readonly summary: string;
  /** Resolves to the exit code; throws `UsageError` for bad arguments (exit 2). */
  run(args: readonly string[], context: CliContext): Promise<number>;
}
