#!/usr/bin/env node
// The `lanewatch` executable: dispatches to a subcommand (see cli/commands.ts).
import { runCli } from './cli/run-cli.ts';

const stopRequested = new Promise<string>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
});

runCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stopRequested,
}).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `lanewatch: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
