#!/usr/bin/env bash
# Runs the given node arguments on another Node release than the repository's pinned one (24): the
# packages run inside applications and services on whatever Node they have.
#   bash scripts/node-release.sh RELEASE [node arguments…]
# RELEASE is 22 (the current 22: its bundled undici 6.x publishes no body-chunk diagnostics channel,
# so the instrumentation takes its dispatcher path there), 26 (the current 26: bundled undici 8.x),
# or a whole version such as 22.15.0 (the oldest supported, whose type stripping is still behind a
# flag). The binary comes from the npm registry's `node` package, installed once per version into
# .cache/node-<version>.
set -euo pipefail
release=${1:?usage: bash scripts/node-release.sh 22|26|X.Y.Z [node arguments…]}
shift
case "$release" in
  22) version=22.23.3 ;;
  26) version=26.10.0 ;;
  *.*.*) version=$release ;;
  *) echo "node-release.sh: RELEASE is 22, 26 or a whole version such as 22.15.0, not '$release'" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/node-$version"
bin="$dir/node_modules/node/bin/node"
if [ ! -x "$bin" ] || [ "$("$bin" --version)" != "v$version" ]; then
  mkdir -p "$dir"
  (cd "$dir" && [ -f package.json ] || echo '{"private":true}' > package.json)
  npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts=false "node@$version" >&2
fi
exec "$bin" --experimental-strip-types --disable-warning=ExperimentalWarning --conditions=lanewatch-source "$@"
