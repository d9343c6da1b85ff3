#!/usr/bin/env bash
# A real Prometheus on this one machine, scraping fake dcgm-exporters that serve recorded real scrapes, for
# integration tests of what gputwin exports to (alert rules) and reads from (validate --prometheus) Prometheus.
#
#   bash scripts/prometheus-local.sh start STATE_DIR RULES_DIR FLEET_JSON   # install, start, wait for data
#                                                                           # (RULES_DIR "" loads no rules)
#   bash scripts/prometheus-local.sh status STATE_DIR                       # URL and what runs; exit 1 if down
#   bash scripts/prometheus-local.sh url STATE_DIR                          # the URL alone
#   bash scripts/prometheus-local.sh stop STATE_DIR                         # stop exactly what `start` started
#
# RULES_DIR holds what `gputwin export prometheus` writes (*.rules.yml, all loaded). FLEET_JSON says which nodes
# the fake exporter serves, from which capture under ../shared/fixtures (GPUTWIN_SHARED_FIXTURES overrides), and
# the faults it injects over time (tests/prometheus/fleet.json; tests/prometheus/fake_dcgm_exporter.py).
# GPUTWIN_PROMETHEUS_BLOCKS=DIR: TSDB blocks (promtool tsdb create-blocks-from ...) copied into the data dir
# before Prometheus starts (bench/prometheus_load.sh); FLEET_JSON may then be "-" (no exporter).
#
# Everything lives under STATE_DIR: prometheus.yml, the TSDB, logs and the PIDs of the processes started.
# Prometheus and the exporter listen on 127.0.0.1 only, on the first free ports from GPUTWIN_PROMETHEUS_PORT
# (default 19090). Scrape and rule evaluation every 2 s (GPUTWIN_PROMETHEUS_INTERVAL), so tests wait seconds.
# No systemd: Debian's package would start a system Prometheus on :9090; the install keeps it from starting, and
# this script runs /usr/bin/prometheus itself, in the foreground of its own session, with its PID recorded.
#
# Root and Debian 12 to install the package; once /usr/bin/prometheus exists, any user may start and stop.
set -euo pipefail

readonly here=$(cd "$(dirname "$0")" && pwd)
readonly repo=$(cd "$here/.." && pwd)
readonly port_start=${GPUTWIN_PROMETHEUS_PORT:-19090}
readonly interval=${GPUTWIN_PROMETHEUS_INTERVAL:-2s}
# shellcheck disable=SC2034 # start_timeout_s and stop_timeout_s are read by lib/local-services.sh
readonly start_timeout_s=${GPUTWIN_PROMETHEUS_START_TIMEOUT:-90}
# shellcheck disable=SC2034 # read by lib/local-services.sh
readonly stop_timeout_s=30
readonly exporter=$repo/tests/prometheus/fake_dcgm_exporter.py
# shellcheck disable=SC2034 # read by lib/local-services.sh
readonly service_name=prometheus-local daemon_log_suffix=.log
# die, install_without_services, start_daemon, recorded_live_pid, stop_recorded, wait_until
# shellcheck source-path=SCRIPTDIR source=lib/local-services.sh
source "$here/lib/local-services.sh"

usage() {
  cat >&2 <<EOF
usage: bash $0 start STATE_DIR RULES_DIR FLEET_JSON
       bash $0 status STATE_DIR
       bash $0 url STATE_DIR
       bash $0 stop STATE_DIR
EOF
  exit 2
}

# Installs Debian's prometheus only when /usr/bin/prometheus is missing, starting no system service
# (lib/local-services.sh).
install_prometheus() {
  [[ -x /usr/bin/prometheus && -x /usr/bin/promtool ]] && return 0
  [[ $(id -u) -eq 0 ]] || die "Debian's prometheus is not installed and installing it needs root"
  grep -q '^ID=debian' /etc/os-release 2>/dev/null || die "only Debian is supported (needs its prometheus package)"
  install_without_services prometheus
}

set_paths() {
  state_dir=$(realpath -m "$1")
  pid_dir=$state_dir/pids
  log_dir=$state_dir/log
  data_dir=$state_dir/data
  config=$state_dir/prometheus.yml
  url_file=$state_dir/url
}

# ---- ports and waiting --------------------------------------------------------------------------------------------

# Free when nothing listens on it: binding 127.0.0.1:PORT succeeds (python3, since a fresh Debian has no `ss`).
port_is_free() {
  python3 -c 'import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)' "$1"
}

# The first free port from $1, skipping $2 (a port already chosen).
free_port_from() {
  local port=$1
  while ! port_is_free "$port" || [[ $port == "${2:-}" ]]; do
    port=$((port + 1))
    ((port < $1 + 200)) || die "no free port in $1-$((port - 1))"
  done
  echo "$port"
}

# Runs a PromQL instant query and prints the JSON answer (python3's urllib: no curl needed).
query() {
  python3 - "$1" "$2" <<'EOF'
import json, sys, urllib.parse, urllib.request
url = sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode({"query": sys.argv[2]})
print(json.dumps(json.load(urllib.request.urlopen(url, timeout=5))))
EOF
}

# Succeeds when the query's single answer is a number of at least $3.
query_at_least() {
  local answer
  answer=$(query "$1" "$2" 2>/dev/null) || return 1
  python3 -c '
import json, sys
result = json.loads(sys.argv[1])["data"]["result"]
sys.exit(0 if result and float(result[0]["value"][1]) >= float(sys.argv[2]) else 1)' "$answer" "$3"
}

# ---- configuration ------------------------------------------------------------------------------------------------

write_config() {
  local rules_dir=$1 fleet=$2 exporter_port=$3
  {
    echo "# Written by gputwin scripts/prometheus-local.sh: a local Prometheus for integration tests."
    echo "global:"
    echo "  scrape_interval: $interval"
    echo "  evaluation_interval: $interval"
    echo "rule_files:"
    if [[ -n $rules_dir ]]; then echo "  - $rules_dir/*.rules.yml"; else echo "  []"; fi  # "" = no rules
    if [[ $fleet == - ]]; then echo "scrape_configs: []"; else echo "scrape_configs:"; fi
    if [[ $fleet != - ]]; then
      # One target per node on the one fake exporter: ?node=NAME picks the node, and instance names it.
      echo "  - job_name: dcgm-exporter"
      echo "    static_configs:"
      local node
      for node in $(python3 -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["nodes"]))' "$fleet"); do
        echo "      - targets: [\"127.0.0.1:$exporter_port\"]"
        echo "        labels: {__param_node: \"$node\", instance: \"$node\"}"
      done
    fi
  } >"$config"
}

cmd_start() {
  local rules_dir=$1 fleet=$2 started=$SECONDS fixtures
  [[ -z $rules_dir || -d $rules_dir ]] || die "no such directory: $rules_dir"
  [[ $fleet == - || -f $fleet ]] || die "no such file: $fleet"
  [[ -z $rules_dir ]] || rules_dir=$(realpath "$rules_dir")
  fixtures=${GPUTWIN_SHARED_FIXTURES:-$repo/../shared/fixtures}
  [[ $fleet == - || -d $fixtures ]] || die "the shared fixtures ($fixtures) are absent; set GPUTWIN_SHARED_FIXTURES"

  install_prometheus
  local name
  for name in prometheus exporter; do
    recorded_live_pid "$name" >/dev/null 2>&1 &&
      die "a Prometheus is already running from $state_dir; stop it first (bash $0 stop $state_dir)"
  done
  mkdir -p "$pid_dir" "$log_dir"
  rm -rf "$data_dir"
  mkdir -p "$data_dir"
  if [[ -n ${GPUTWIN_PROMETHEUS_BLOCKS:-} ]]; then
    cp -r "$GPUTWIN_PROMETHEUS_BLOCKS"/. "$data_dir/"
  fi

  local prometheus_port exporter_port
  prometheus_port=$(free_port_from "$port_start")
  exporter_port=$(free_port_from $((prometheus_port + 1)) "$prometheus_port")
  write_config "$rules_dir" "$fleet" "$exporter_port"
  promtool check config "$config" >"$log_dir/promtool-check-config.log" 2>&1 ||
    die "promtool check config refused $config: $(cat "$log_dir/promtool-check-config.log")"

  trap 'status=$?; ((status == 0)) || { echo "prometheus-local: start failed; stopping what it started" >&2; cmd_stop >&2; }' EXIT
  if [[ $fleet != - ]]; then
    start_daemon exporter python3 "$exporter" "$fleet" --fixtures "$fixtures" --port "$exporter_port"
  fi
  local url=http://127.0.0.1:$prometheus_port
  start_daemon prometheus /usr/bin/prometheus --config.file="$config" --storage.tsdb.path="$data_dir" \
    --storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$prometheus_port" \
    --web.console.templates=/dev/null --web.console.libraries=/dev/null
  echo "$url" >"$url_file"
  wait_until "Prometheus to answer at $url" "$log_dir/prometheus.log" query "$url" "vector(1)"
  if [[ $fleet != - ]]; then
    # Data means every node's exporter target was scraped and its GPU series are queryable.
    local nodes
    nodes=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["nodes"]))' "$fleet")
    wait_until "all $nodes exporter targets to be up with GPU series" "$log_dir/prometheus.log" \
      query_at_least "$url" "count(count by (Hostname) (DCGM_FI_DEV_GPU_TEMP))" "$nodes"
  fi
  trap - EXIT
  echo "prometheus-local: Prometheus at $url (scrape and evaluation every $interval) in $((SECONDS - started))s"
}

cmd_status() {
  local url=- name pid running=true
  [[ -f $url_file ]] && url=$(cat "$url_file")
  echo "url $url"
  for name in prometheus exporter; do
    if pid=$(recorded_live_pid "$name" 2>/dev/null); then
      echo "$name running (pid $pid)"
    elif [[ -f $pid_dir/$name.pid ]]; then
      echo "$name stopped"
      running=false
    fi
  done
  [[ -f $pid_dir/prometheus.pid ]] || running=false
  $running
}

cmd_stop() {
  [[ -d $pid_dir ]] || {
    echo "prometheus-local: nothing recorded in $state_dir; nothing to stop"
    return 0
  }
  stop_recorded prometheus
  stop_recorded exporter
  rm -f "$url_file"
  echo "prometheus-local: stopped the Prometheus of $state_dir"
}

main() {
  (($# >= 1)) || usage
  local command=$1
  shift
  case $command in
    start)
      (($# == 3)) || usage
      set_paths "$1"
      cmd_start "$2" "$3"
      ;;
    status | url | stop)
      (($# == 1)) || usage
      set_paths "$1"
      case $command in
        status) cmd_status ;;
        url) [[ -f $url_file ]] && cat "$url_file" || die "not running from $state_dir" ;;
        stop) cmd_stop ;;
      esac
      ;;
    *) usage ;;
  esac
}

main "$@"
