#!/usr/bin/env bash
# Redis for the lane-health store's tests and local runs.
#
#   scripts/redis.sh ensure [PORT]    make sure something answers PING on 127.0.0.1:PORT (6379): if
#                                     nothing does, start a daemonized redis-server there the way the
#                                     machine image does (installing Debian's redis-server if absent);
#                                     print its redis:// URL
#   scripts/redis.sh run PORT DIR     run a private redis-server in the foreground on 127.0.0.1:PORT,
#                                     working dir DIR, nothing persisted (tests that stop and restart
#                                     Redis use this, through test/stack)
#   scripts/redis.sh ping [PORT]      exit 0 when 127.0.0.1:PORT (default 6379) answers PONG
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# RESP over bash's /dev/tcp: no redis-cli needed.
ping() {
  local port=${1:-6379} reply
  reply=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'PING\r\n' >&3 && IFS= read -r -t 2 line <&3 && echo "$line") 2>/dev/null) || true
  [ "${reply%$'\r'}" = "+PONG" ]
}

install() {
  if ! command -v redis-server >/dev/null; then
    echo "redis.sh: installing Debian's redis-server package" >&2
    local policy=/usr/sbin/policy-rc.d added=""
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null && as_root chmod +x "$policy" && added=1
    fi
    local status=0
    { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq \
        --no-install-recommends redis-server; } >&2 || status=$?
    [ -n "$added" ] && as_root rm -f "$policy"
    [ "$status" = 0 ] || { echo "redis.sh: apt-get install redis-server failed" >&2; exit "$status"; }
  fi
  command -v redis-server
}

ensure() {
  local port=${1:-6379} bin
  ping "$port" && { echo "redis://127.0.0.1:$port"; return; }
  bin=$(install)
  echo "redis.sh: nothing answers on 127.0.0.1:$port; starting redis-server there" >&2
  (cd / && "$bin" --daemonize yes --bind 127.0.0.1 -::1 --port "$port" --save "" --appendonly no) >&2
  for _ in $(seq 100); do
    ping "$port" && { echo "redis://127.0.0.1:$port"; return; }
    sleep 0.1
  done
  echo "redis.sh: redis-server did not answer PING on 127.0.0.1:$port within 10 s" >&2
  exit 1
}

run() {
  local port=$1 dir=$2 bin
  bin=$(install)
  mkdir -p "$dir"
  cd "$dir"
  exec "$bin" --bind 127.0.0.1 --port "$port" --save "" --appendonly no --daemonize no --dir "$dir"
}

case "${1:-}" in
  ensure) ensure "${2:-6379}" ;;
  run) run "${2:?usage: $0 run PORT DIR}" "${3:?usage: $0 run PORT DIR}" ;;
  ping) ping "${2:-6379}" ;;
  *) echo "usage: $0 ensure [PORT]|run PORT DIR|ping [PORT]" >&2; exit 2 ;;
esac
