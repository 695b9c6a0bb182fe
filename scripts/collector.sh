#!/usr/bin/env bash
# The lanewatch collector, built from collector-config/builder-config.yaml with the OpenTelemetry
# Collector Builder and cached under ${LANEWATCH_CACHE:-$HOME/.cache/lanewatch}, keyed by a hash of
# the manifest (without its comments) and the builder version: a second `build` prints the cached
# binary at once.
#
#   scripts/collector.sh build   build unless cached; print the binary's path
#   scripts/collector.sh path    print the binary's path if it is built, else exit 1
#
# Go's module and build caches live in the same cache dir, so nothing lands in the repo or in ~/go.
# A cold build takes minutes on 2 cores (see collector-config/README.md for measured times).
set -euo pipefail

builder_version=v0.161.0
root=$(cd "$(dirname "$0")/.." && pwd)
manifest="$root/collector-config/builder-config.yaml"
cache=${LANEWATCH_CACHE:-$HOME/.cache/lanewatch}
# Comments and blank lines do not change what gets built, so they do not change the key either.
key=$( { sed -e 's/^[[:space:]]*#.*//' -e 's/[[:space:]]*$//' "$manifest" | grep -v '^$'
         echo "builder $builder_version"; } | sha256sum | cut -c1-16)
dir="$cache/collector/$key"
bin="$dir/otelcol-lanewatch"

export GOPATH="$cache/go" GOMODCACHE="$cache/go/pkg/mod" GOCACHE="$cache/go-build"
export GOFLAGS=-buildvcs=false GOTOOLCHAIN=local CGO_ENABLED=0
export PATH="/usr/local/go/bin:$PATH"

usage() { echo "usage: $0 build|path" >&2; exit 2; }

builder() {
  local builder_bin="$cache/bin/builder-$builder_version/builder"
  if [ ! -x "$builder_bin" ]; then
    echo "collector.sh: installing the collector builder $builder_version" >&2
    GOBIN="$(dirname "$builder_bin")" go install "go.opentelemetry.io/collector/cmd/builder@$builder_version" >&2
  fi
  echo "$builder_bin"
}

build() {
  [ -x "$bin" ] && { echo "$bin"; return; }
  command -v go >/dev/null || { echo "collector.sh: Go is needed to build the collector (expected at /usr/local/go)" >&2; exit 1; }
  mkdir -p "$cache/collector"
  # One build at a time per cache dir; whoever waited finds the binary ready.
  exec 9>"$cache/collector/.lock"
  flock 9
  [ -x "$bin" ] && { echo "$bin"; return; }
  local builder_bin work started
  rm -rf "$cache/collector"/build.* # left by a failed or killed build; we hold the lock
  builder_bin=$(builder)
  work=$(mktemp -d "$cache/collector/build.XXXXXX")
  started=$(date +%s)
  echo "collector.sh: building the collector in $work (takes minutes on a cold cache)" >&2
  (cd "$work" && "$builder_bin" --config "$manifest" >"$work/build.log" 2>&1) || {
    tail -50 "$work/build.log" >&2
    echo "collector.sh: build failed; full log in $work/build.log" >&2
    exit 1
  }
  mkdir -p "$dir"
  cp "$manifest" "$dir/builder-config.yaml"
  mv "$work/dist/otelcol-lanewatch" "$bin.tmp" && mv "$bin.tmp" "$bin"
  rm -rf "$work"
  echo "collector.sh: built in $(($(date +%s) - started)) s" >&2
  echo "$bin"
}

case "${1:-}" in
  build) build ;;
  path) [ -x "$bin" ] && echo "$bin" || { echo "collector.sh: not built yet; run: $0 build" >&2; exit 1; } ;;
  *) usage ;;
esac
