#!/usr/bin/env node
// The `lanewatch` command: the built CLI in dist/. A checkout builds it with `npm run build`; the bin
// is this file, not dist/cli.js, so that `npm ci` links it before anything is built.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) await import(cli.href);
else {
  process.stderr.write(
    'lanewatch: the CLI is not built yet; run `npm run build` at the repository root, then try again\n',
  );
  process.exitCode = 1;
}
