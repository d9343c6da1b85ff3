# shellcheck shell=bash
# shellcheck disable=SC2154 # service_name, pid_dir, log_dir, stop_timeout_s, start_timeout_s: set by the sourcing script
# Sourced by scripts/slurm-local.sh and scripts/prometheus-local.sh: what both do to run daemons of Debian
# packages on this machine for integration tests, and stop exactly those.
#
#   service_name=prometheus-local        # prefixes every message
#   stop_timeout_s=30 start_timeout_s=90
#   pid_dir=STATE/pids log_dir=STATE/log daemon_log_suffix=.log   # set before the functions run
#   source "$here/lib/local-services.sh"
#   install_without_services prometheus  # apt-get install with a policy-rc.d that starts no service
#   start_daemon prometheus /usr/bin/prometheus ...   # foreground daemon, own session, PID recorded
#   wait_until "Prometheus to answer" "$log_dir/prometheus.log" some_check ARGS...
#   stop_recorded prometheus             # SIGTERM, then SIGKILL after stop_timeout_s
#
# Each started daemon is recorded as "PID START_TIME" in pids/NAME.pid. The start time (field 22 of
# /proc/PID/stat, clock ticks since boot) tells our process from a later one that reused its PID, so a stop never
# signals a stranger.

die() {
  echo "$service_name: $*" >&2
  exit 1
}

# apt-get installs PACKAGES. Their maintainer scripts would start the system's own daemons where an init system lets
# them; ours run from a state directory, so, unless the machine already has a policy, a policy-rc.d says "do not
# start services" for the install (exit code 101, as Debian's invoke-rc.d documents) and is removed after.
install_without_services() {
  echo "$service_name: installing $*"
  local policy=/usr/sbin/policy-rc.d made_policy=false install_log
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\n# Written by gputwin scripts/%s.sh during its apt-get install; removed after.\nexit 101\n' \
      "$service_name" >"$policy"
    chmod 755 "$policy"
    made_policy=true
  fi
  install_log=$(mktemp)
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"; } >"$install_log" 2>&1; then
    cat "$install_log" >&2
    [[ $made_policy == false ]] || rm -f "$policy"
    die "installing $* failed"
  fi
  [[ $made_policy == false ]] || rm -f "$policy"
  rm -f "$install_log"
}

process_start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  # Fields after the command name, which is in parentheses and may hold spaces: field 3 is state, 22 start time.
  stat=${stat##*) }
  # shellcheck disable=SC2086 # word splitting into fields is the point
  set -- $stat
  # An exited daemon nobody reaped yet (we are not its parent) is a zombie: it runs no more.
  [[ $1 != Z ]] || return 1
  echo "${20}"
}

record_pid() {
  local name=$1 pid=$2 start_time
  start_time=$(process_start_time "$pid") ||
    die "$name (pid $pid) exited at once; see $log_dir/$name*${daemon_log_suffix:-.log}"
  echo "$pid $start_time" >"$pid_dir/$name.pid"
}

# Prints the PID recorded under NAME if that very process still runs.
recorded_live_pid() {
  local file=$pid_dir/$1.pid pid start_time
  [[ -f $file ]] || return 1
  read -r pid start_time <"$file"
  [[ $(process_start_time "$pid" 2>/dev/null) == "$start_time" ]] || return 1
  echo "$pid"
}

# Starts a daemon that stays in the foreground, detached from our terminal and session, its output appended to
# LOG_DIR/NAME$daemon_log_suffix, and records its PID. `setsid` does not fork here (a background child of a
# non-interactive shell is no group leader), so $! is the daemon itself.
start_daemon() {
  local name=$1
  shift
  setsid "$@" </dev/null >>"$log_dir/$name${daemon_log_suffix:-.log}" 2>&1 &
  record_pid "$name" "$!"
}

# Stops the daemon recorded under NAME: SIGTERM, and SIGKILL when it still runs after stop_timeout_s; forgets it.
stop_recorded() {
  local name=$1 pid waited_ds=0
  if pid=$(recorded_live_pid "$name"); then
    kill -TERM "$pid" 2>/dev/null || true
    while recorded_live_pid "$name" >/dev/null; do
      if ((waited_ds == stop_timeout_s * 10)); then
        echo "$service_name: $name (pid $pid) ignored SIGTERM for ${stop_timeout_s}s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
      fi
      sleep 0.1
      waited_ds=$((waited_ds + 1))
    done
  fi
  rm -f "$pid_dir/$name.pid"
}

# wait_until DESCRIPTION LOG_FILE COMMAND...: polls COMMAND until it succeeds; after start_timeout_s shows the
# log's tail (after the output of $timeout_diagnostic when it names a command) and exits 1.
timeout_diagnostic=
wait_until() {
  local description=$1 log_file=$2
  shift 2
  local deadline=$((SECONDS + start_timeout_s))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "$service_name: timed out after ${start_timeout_s}s waiting for $description" >&2
      [[ -z $timeout_diagnostic ]] || $timeout_diagnostic >&2 2>&1 || true
      echo "$service_name: last lines of $log_file:" >&2
      tail -n 30 "$log_file" >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.5
  done
}
