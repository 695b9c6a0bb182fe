import type { CliContext, Command } from './cli-context.ts';
import { COMMANDS } from './commands.ts';
import { EXIT_USAGE, UsageError } from './usage-error.ts';

export function mainHelp(commands: readonly Command[] = COMMANDS): string {
  return [
    'Usage: lanewatch <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`),
    '',
    'lanewatch <command> --help for its options.',
  ].join('\n');
}

/** Dispatches `argv` (without node and the script) to a subcommand; resolves to the exit code. */
export async function runCli(
  argv: readonly string[],
  context: CliContext,
  commands: readonly Command[] = COMMANDS,
): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? context.stderr : context.stdout)(`${mainHelp(commands)}\n`);
    return name === undefined ? EXIT_USAGE : 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    context.stderr(`lanewatch: unknown command ${JSON.stringify(name)}\n\n${mainHelp(commands)}\n`);
    return EXIT_USAGE;
  }
  try {
    return await command.run(args, context);
  } catch (error) {
    if (error instanceof UsageError) {
      context.stderr(`lanewatch ${name}: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
