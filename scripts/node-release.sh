#!/usr/bin/env bash
# Runs the given node arguments on Node 22, the other supported major: its bundled undici (6.x)
# publishes no body-chunk diagnostics channel, so the instrumentation takes its dispatcher path there.
# NODE22_VERSION picks the release (default the current 22; 22.15.0 is the oldest supported, whose
# type stripping is still behind a flag). The binary comes from the npm registry's `node` package,
# installed once per version into .cache/node22-<version>.
set -euo pipefail
version=${NODE22_VERSION:-22.23.3}
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/node22-$version"
bin="$dir/node_modules/node/bin/node"
if [ ! -x "$bin" ] || [ "$("$bin" --version)" != "v$version" ]; then
  mkdir -p "$dir"
  (cd "$dir" && [ -f package.json ] || echo '{"private":true}' > package.json)
  npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts=false "node@$version" >&2
fi
exec "$bin" --experimental-strip-types --disable-warning=ExperimentalWarning --conditions=lanewatch-source "$@"
