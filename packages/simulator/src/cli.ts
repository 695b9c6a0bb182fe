#!/usr/bin/env node
// lanewatch-simulator: named lane profiles on local ports, for trying the stack by hand.
import { CliError, parseCliArgs, USAGE } from './cli-args.ts';
import { DEFAULT_KNOBS } from './lane-knobs.ts';
import { laneProfile, PROFILE_NAMES } from './lane-profiles.ts';
import { OPENROUTER_DIALECT, openaiChatWriter } from './openai-chat-writer.ts';
import { type LaneServer, startLane } from './start-lane.ts';

// A reader that closes the pipe early (`| head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

async function main(argv: readonly string[]): Promise<number> {
  const options = parseCliArgs(argv);
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.list) {
    for (const name of PROFILE_NAMES)
      process.stdout.write(`${name.padEnd(16)} ${laneProfile(name).description}\n`);
    process.stdout.write('\nKnobs (defaults; profiles override some):\n');
    for (const [knob, value] of Object.entries(DEFAULT_KNOBS))
      process.stdout.write(`  ${knob.padEnd(28)} ${value}\n`);
    return 0;
  }
  const writers =
    options.dialect === 'openrouter' ? { 'openai-chat': openaiChatWriter(OPENROUTER_DIALECT) } : {};
  const lanes: LaneServer[] = [];
  try {
    for (const lane of options.lanes) {
      lanes.push(
        await startLane(lane.profile, {
          seed: lane.seed,
          knobs: options.knobs,
          host: options.host,
          port: lane.port,
          writers,
        }),
      );
    }
  } catch (error) {
    await Promise.all(lanes.map(({ server }) => server.close()));
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      throw new CliError(`cannot listen on ${options.host}: ${code} (choose another PROFILE:PORT)`);
    }
    throw error;
  }
  for (const [index, { profile, server }] of lanes.entries()) {
    const seed = options.lanes[index]?.seed;
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ lane: profile.name, url: server.url, seed })}\n`
        : `${profile.name.padEnd(16)} ${server.url.padEnd(24)} ${profile.description}\n`,
    );
  }
  if (!options.json) process.stdout.write('Ctrl-C stops the lanes.\n');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.all(lanes.map(({ server }) => server.close()));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof CliError) {
      process.stderr.write(`lanewatch-simulator: ${error.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`lanewatch-simulator: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
