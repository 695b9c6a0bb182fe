import type { CliContext, Command } from '../cli/cli-context.ts';
import { demoHelp, parseDemoOptions } from './demo-options.ts';

/** `lanewatch demo`: the whole product on one machine, on simulated lanes, in one process. */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'simulated lanes whose averages agree and tails do not: live scoreboard, hints, admission, report',
  async run(args: readonly string[], context: CliContext): Promise<number> {
    if (args.includes('--help') || args.includes('-h')) {
      context.stdout(`${demoHelp()}\n`);
      return 0;
    }
    const options = parseDemoOptions(args, context.env);
    // The board is redrawn in place only on a terminal; a pipe gets plain lines.
    const stdout = process.stdout;
    const terminal =
      stdout.isTTY === true ? () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 }) : undefined;
    // Loaded here, not at the top: the simulator and the SDKs stay out of every other command's start-up.
    const { runDemo } = await import('./run-demo.ts');
    await runDemo(options, {
      stdout: context.stdout,
      stderr: context.stderr,
      stopRequested: context.stopRequested,
      terminal,
    });
    return 0;
  },
};
