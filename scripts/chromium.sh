#!/usr/bin/env bash
# Headless Chromium for the report tests (Debian's `chromium` package).
#   scripts/chromium.sh ensure   install it with apt-get when absent; print the binary's path
#   scripts/chromium.sh path     print the binary's path, or exit 1 when it is not installed
# Launch it as the tests do:
#   chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
#     --disable-component-update --disable-sync --no-first-run --user-data-dir="$(mktemp -d)" \
#     --dump-dom file:///path/to/lanewatch-report.html
set -euo pipefail

find_chromium() {
  local candidate
  for candidate in chromium chromium-browser; do
    if command -v "$candidate" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

case "${1:-}" in
  path)
    find_chromium
    ;;
  ensure)
    if find_chromium; then exit 0; fi
    if [ "$(id -u)" -ne 0 ]; then
      echo "chromium.sh: chromium is not installed; run as root, or: sudo apt-get install chromium" >&2
      exit 1
    fi
    # Serialised: two test runs on one machine must not run apt-get at the same time.
    exec 9>/tmp/lanewatch-chromium-install.lock
    flock 9
    if find_chromium; then exit 0; fi
    echo "chromium.sh: installing Debian's chromium package (once)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
    find_chromium
    ;;
  *)
    echo "usage: scripts/chromium.sh ensure|path" >&2
    exit 2
    ;;
esac
