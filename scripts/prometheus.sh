#!/usr/bin/env bash
# A private Prometheus for tests and local runs: Debian's package (2.42), never its system service.
#
#   scripts/prometheus.sh install          install the `prometheus` package if missing; print the binary
#   scripts/prometheus.sh start [DIR]      start one on a free 127.0.0.1 port, state (config, data, log,
#                                          pid) in DIR (default: a new temp dir); wait until ready;
#                                          print its URL
#   scripts/prometheus.sh stop DIR         stop the one started with DIR
#   scripts/prometheus.sh run DIR PORT     run one in the foreground (what `start` and test/stack use)
#
# Flags: the remote-write receiver (the collector writes into it) and native histograms (what the
# collector turns exponential histograms into). No scrape targets: data arrives by remote write.
set -euo pipefail

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install() {
  if ! command -v prometheus >/dev/null; then
    echo "prometheus.sh: installing Debian's prometheus package" >&2
    # Keep the package's service from starting: we run our own, on our own port and data dir.
    local policy=/usr/sbin/policy-rc.d added=""
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null && as_root chmod +x "$policy" && added=1
    fi
    local status=0
    { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq \
        --no-install-recommends prometheus; } >&2 || status=$?
    [ -n "$added" ] && as_root rm -f "$policy"
    [ "$status" = 0 ] || { echo "prometheus.sh: apt-get install prometheus failed" >&2; exit "$status"; }
    # Should a service manager have started it anyway, stop it: it would hold port 9090.
    as_root systemctl stop prometheus >/dev/null 2>&1 || true
  fi
  command -v prometheus
}

free_port() { # a port nothing on 127.0.0.1 answers on; the caller binds it right away
  local port
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
  done
  echo "prometheus.sh: no free port found" >&2; exit 1
}

run() {
  local dir=$1 port=$2 bin
  bin=$(install)
  mkdir -p "$dir/data"
  cat >"$dir/prometheus.yml" <<'EOF'
global:
  scrape_interval: 15s
  evaluation_interval: 15s
scrape_configs: []
EOF
  echo "http://127.0.0.1:$port" >"$dir/url"
  exec "$bin" \
    --config.file="$dir/prometheus.yml" \
    --storage.tsdb.path="$dir/data" \
    --web.listen-address="127.0.0.1:$port" \
    --web.enable-remote-write-receiver \
    --enable-feature=native-histograms \
    --log.level=info
}

start() {
  local dir=${1:-} port url
  [ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/tmp}/lanewatch-prometheus.XXXXXX")
  mkdir -p "$dir"
  install >/dev/null
  port=$(free_port)
  url="http://127.0.0.1:$port"
  setsid "$0" run "$dir" "$port" >"$dir/prometheus.log" 2>&1 </dev/null &
  echo $! >"$dir/prometheus.pid"
  for _ in $(seq 300); do
    if curl -fsS "$url/-/ready" >/dev/null 2>&1; then
      echo "prometheus.sh: ready; state in $dir; stop with: $0 stop $dir" >&2
      echo "$url"
      return
    fi
    kill -0 "$(cat "$dir/prometheus.pid")" 2>/dev/null || { tail -20 "$dir/prometheus.log" >&2; exit 1; }
    sleep 0.1
  done
  echo "prometheus.sh: not ready after 30 s; log: $dir/prometheus.log" >&2
  exit 1
}

stop() {
  local dir=${1:?usage: $0 stop DIR} pid
  [ -f "$dir/prometheus.pid" ] || { echo "prometheus.sh: no prometheus.pid in $dir" >&2; exit 1; }
  pid=$(cat "$dir/prometheus.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/prometheus.pid"
}

case "${1:-}" in
  install) install ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  run) run "${2:?usage: $0 run DIR PORT}" "${3:?usage: $0 run DIR PORT}" ;;
  *) echo "usage: $0 install|start [DIR]|stop DIR|run DIR PORT" >&2; exit 2 ;;
esac
