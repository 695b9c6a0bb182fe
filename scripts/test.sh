#!/usr/bin/env bash
# The whole test suite, as CI runs it: build, lint, unit tests on Node 24 (the repo's pinned Node),
# the instrumentation again on Node 22 (bundled undici 6: the dispatcher path) — the current 22 and
# 22.15, the oldest supported; the context-following tests once more on the current 22 with
# --experimental-async-context-frame — and every package's unit tests on the current 26 (bundled
# undici 8); then the end-to-end tests, which install or start what they need (collector build,
# Prometheus, Redis) themselves.
# Ends with one line "N passed, N failed, N skipped" summing every run.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
reports="$root/.cache/test-reports"
rm -rf "$reports" && mkdir -p "$reports"
status=0

step() { echo; echo "=== $1"; }
run_tests() { # name, minutes allowed, node command (words), test file patterns…
  local name=$1 minutes=$2 cmd=$3
  shift 3
  # Options go before the patterns: after them, node would hand them to the tests as arguments.
  # A test that hangs fails after 5 minutes. No --test-force-exit: it ended test files before all
  # of their suites had run (10 tests of the Node 24 run and 44 of the Node 22 run went missing,
  # silently, with every count still green). A file kept alive by a leaked handle is caught by the
  # wall clock instead, so one leak cannot stall CI's 90 minutes.
  # shellcheck disable=SC2086 # the command is words on purpose
  timeout --kill-after=30s "${minutes}m" $cmd --test-timeout=300000 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$reports/$name.tap" \
    --test "$@"
  local rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    echo "lanewatch tests: the $name run did not finish within $minutes minutes — a test hangs or left a handle open (a server, a timer, a child process); what ran is in $reports/$name.tap"
    echo "# fail 1" >>"$reports/$name.tap"
  fi
  [ "$rc" -eq 0 ] || status=1
}

step "build" && npx turbo run build --output-logs=errors-only || exit 1
step "lint" && npm run --silent lint || status=1
# What the tests need from outside npm, installed or built once before any test clock starts:
# Debian's chromium (the report is rendered by it) and the collector (15–25 min cold on 2 cores,
# then cached under ~/.cache/lanewatch). Prometheus and Redis are installed or started by the tests.
step "chromium (Debian package)" && bash scripts/chromium.sh ensure || status=1
step "collector (built from source once, then cached)" && bash scripts/collector.sh build || status=1
step "unit tests, Node $(node --version)"
run_tests unit 20 "node --conditions=lanewatch-source" 'packages/*/src/**/*.test.ts'
step "instrumentation tests, Node 22 (current)"
run_tests node22 20 "bash scripts/node-release.sh 22" 'packages/instrumentation/src/**/*.test.ts'
step "instrumentation tests, Node 22.15 (the oldest supported)"
run_tests node22.15 20 "bash scripts/node-release.sh 22.15.0" 'packages/instrumentation/src/**/*.test.ts'
# The README suggests Node 22's --experimental-async-context-frame (the SDK's context manager then
# runs on Node 24's mechanism): the tests that follow a caller's context through a call, with it on.
step "instrumentation tests, Node 22 with --experimental-async-context-frame"
run_tests node22-context-frame 10 "bash scripts/node-release.sh 22 --experimental-async-context-frame" \
  packages/instrumentation/src/instrumentation.test.ts packages/instrumentation/src/batch-recording.test.ts
# The newest release line, whose bundled undici (8.x) is a major version ahead of Node 24's: every
# package, since applications and services run them on the Node they have.
step "unit tests, Node 26 (current)"
run_tests node26 20 "bash scripts/node-release.sh 26" 'packages/*/src/**/*.test.ts'
if [ -n "$(find test -name '*.test.ts' -not -path '*/node_modules/*' | head -1)" ]; then
  step "end-to-end tests"
  run_tests e2e 30 "node --conditions=lanewatch-source --test-concurrency=1" 'test/**/*.test.ts'
fi

sum() { cat "$reports"/*.tap 2>/dev/null | grep -E "^# $1 [0-9]+$" | awk '{s+=$3} END {print s+0}'; }
pass=$(sum pass); fail=$(sum fail); skipped=$(sum skipped); todo=$(sum todo)
[ "$fail" -eq 0 ] || status=1
echo
echo "$pass passed, $fail failed, $skipped skipped"
exit $status
