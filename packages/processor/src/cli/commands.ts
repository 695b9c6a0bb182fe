import { demoCommand } from '../demo/demo-command.ts';
import { probeCommand } from '../probe/probe-command.ts';
import type { Command } from './cli-context.ts';
import { serveCommand } from './serve-command.ts';

/** Every subcommand of `lanewatch`. Add one by writing a `Command` and listing it here. */
export const COMMANDS: readonly Command[] = [serveCommand, demoCommand, probeCommand];
