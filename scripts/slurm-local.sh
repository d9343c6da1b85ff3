#!/usr/bin/env bash
# A real Slurm cluster on this one machine, for integration tests of what gputwin exports to and imports from Slurm.
#
#   bash scripts/slurm-local.sh start GENERATED_DIR STATE_DIR   # install, configure, start, wait until nodes idle
#   bash scripts/slurm-local.sh stop STATE_DIR                  # stop exactly what `start` started
#   eval "$(bash scripts/slurm-local.sh env STATE_DIR)"         # point sbatch, sinfo, sacct... at it
#
# GENERATED_DIR holds what `gputwin export slurm` writes: slurm.conf (nodes, GPUs, partitions only), gres.conf and
# topology.conf. This script adds the site part (daemons, ports, paths, accounting) around it in STATE_DIR.
#
# Everything lives under STATE_DIR: configs, munge key and socket, a private MariaDB datadir, Slurm state, spool,
# logs and the PIDs of the daemons started. Clients reach every daemon at 127.0.0.1, on ports from
# GPUTWIN_SLURM_PORT_BASE (default 17800) so a system Slurm or MariaDB on the usual ports is never touched:
#   base+0 slurmctld, base+1 slurmdbd, base+2 mariadbd, base+10+i slurmd of the i-th node (i from 0).
# (MariaDB listens on 127.0.0.1 only; Slurm 22.05 has no setting to bind its daemons to one address, so they listen
# on all addresses of the machine, but nothing here talks to them other than through 127.0.0.1.)
# No systemd: each daemon runs in the foreground of its own session, started by us, and its PID is recorded.
#
# Root and Debian 12 only: it installs packages, makes device nodes and runs daemons as other users.
set -euo pipefail

readonly packages=(slurm-wlm slurmdbd munge mariadb-server)
readonly port_base=${GPUTWIN_SLURM_PORT_BASE:-17800}
readonly slurm_user=slurm
readonly cluster_name=gputwin
# How long to wait for each daemon, and for all nodes to turn idle. Generous for a loaded 2-core CI machine.
# shellcheck disable=SC2034 # read by lib/local-services.sh
readonly start_timeout_s=${GPUTWIN_SLURM_START_TIMEOUT:-90}
# Daemons are asked to stop with SIGTERM; slurmctld and mariadbd save state first, so give them time.
# shellcheck disable=SC2034 # read by lib/local-services.sh
readonly stop_timeout_s=30
# Stop order: clients of a daemon go before it (slurmd -> slurmctld -> slurmdbd -> mariadbd -> munged).
readonly stop_order=(slurmd slurmctld slurmdbd mariadbd munged)

# shellcheck disable=SC2034 # read by lib/local-services.sh
readonly service_name=slurm-local daemon_log_suffix=.out
# die, install_without_services, start_daemon, recorded_live_pid, stop_recorded, wait_until
# shellcheck source-path=SCRIPTDIR source=lib/local-services.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/local-services.sh"

usage() {
  cat >&2 <<EOF
usage: bash $0 start GENERATED_DIR STATE_DIR
       bash $0 stop STATE_DIR
       bash $0 env STATE_DIR
EOF
  exit 2
}

require_root_on_debian() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (it installs packages, makes /dev/nvidia* nodes and starts daemons)"
  if [[ ! -r /etc/debian_version ]] || ! grep -q '^ID=debian' /etc/os-release 2>/dev/null; then
    die "only Debian is supported (needs Debian's slurm-wlm, slurmdbd, munge and mariadb-server packages)"
  fi
}

# Installs the packages only when one is missing, so a second start costs nothing and needs no network.
install_packages() {
  local missing=() package
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  ((${#missing[@]} == 0)) && return 0
  install_without_services "${missing[@]}"
}

# ---- paths inside STATE_DIR ---------------------------------------------------------------------------------------

set_paths() {
  state_dir=$(realpath -m "$1")
  etc_dir=$state_dir/etc
  log_dir=$state_dir/log
  run_dir=$state_dir/run
  pid_dir=$state_dir/pids
  munge_dir=$state_dir/munge
  mysql_dir=$state_dir/mysql
  slurm_conf=$etc_dir/slurm.conf
  munge_socket=$munge_dir/munge.socket
  mysql_socket=$mysql_dir/mysqld.sock
  devices_file=$state_dir/created-devices
}

port_is_free() {
  ! ss -Hltn "sport = :$1" | grep -q .
}

require_free_port() {
  port_is_free "$1" || die "port $1 ($2) is taken on this machine; set GPUTWIN_SLURM_PORT_BASE to another base"
}

# Expands a hostlist expression (node-[1-4], /dev/nvidia[0-7]) with Slurm's own parser, the one slurmctld uses.
# scontrol insists on reading some slurm.conf even for this, and ours does not exist yet: give it a minimal one.
expand_hostlist() {
  local minimal_conf=$etc_dir/hostlist-only.conf
  [[ -f $minimal_conf ]] || printf 'ClusterName=hostlist\nSlurmctldHost=localhost\n' >"$minimal_conf"
  SLURM_CONF=$minimal_conf scontrol show hostnames "$1"
}

# ---- fake GPUs ----------------------------------------------------------------------------------------------------

# Slurm's gres plugin only checks that each File= of gres.conf exists; a character device with NVIDIA's major
# number 195 is enough for slurmd to count and hand out GPUs. We record the nodes we made so stop removes only those.
make_fake_gpu_devices() {
  local generated_dir=$1 expression device minor
  : >"$devices_file"
  for expression in $(grep -o 'File=[^ ]*' "$generated_dir/gres.conf" | cut -d= -f2); do
    for device in $(expand_hostlist "$expression"); do
      [[ $device =~ ^/dev/nvidia([0-9]+)$ ]] || die "gres.conf names $device; only /dev/nvidiaN can be faked"
      minor=${BASH_REMATCH[1]}
      [[ -e $device ]] && continue
      mknod "$device" c 195 "$minor" ||
        die "cannot create $device: mknod needs CAP_MKNOD (in a container: run it privileged, or create the nodes outside)"
      echo "$device" >>"$devices_file"
    done
  done
}

# ---- configuration ------------------------------------------------------------------------------------------------

node_names() {
  # Every NodeName=EXPRESSION of the generated slurm.conf, expanded to one name a line.
  local expression
  for expression in $(grep -o '^NodeName=[^ ]*' "$etc_dir/generated-slurm.conf" | cut -d= -f2); do
    [[ $expression == DEFAULT ]] && continue
    expand_hostlist "$expression"
  done
}

# Several slurmd on one host: each node is reached at 127.0.0.1 on a port of its own, and `slurmd -N NAME` plays
# node NAME. Debian's Slurm is built with multiple-slurmd support (its auth_munge.so carries the code that accepts
# the same munge credential seen by several slurmd, compiled only in that mode), and it works: %n in paths, one
# port per node. The generated NodeName lines say nothing about addresses (that is the site's business), so we
# append NodeHostname, NodeAddr and Port to each, numbering ports in the order nodes appear.
write_node_lines_with_ports() {
  local next_port=$((port_base + 10)) line expression count
  while IFS= read -r line; do
    if [[ $line =~ ^NodeName=([^ ]+) && ${BASH_REMATCH[1]} != DEFAULT ]]; then
      expression=${BASH_REMATCH[1]}
      count=$(expand_hostlist "$expression" | wc -l)
      local ports=$next_port
      ((count == 1)) || ports="[$next_port-$((next_port + count - 1))]"
      echo "$line NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 Port=$ports"
      next_port=$((next_port + count))
    else
      echo "$line"
    fi
  done <"$etc_dir/generated-slurm.conf"
}

# gres/gpu counts all GPUs; gres/gpu:TYPE per type. Both, so accounting shows what real clusters usually record.
accounting_tres() {
  local tres=gres/gpu type
  for type in $(grep -o 'Gres=[^ ]*' "$etc_dir/generated-slurm.conf" | tr ',' '\n' | sed -n 's/.*gpu:\([^:]*\):.*/\1/p' | sort -u); do
    tres+=",gres/gpu:$type"
  done
  echo "$tres"
}

write_slurm_conf() {
  cat >"$slurm_conf" <<EOF
# Site part written by scripts/slurm-local.sh for a local test cluster; the generated part follows below.
ClusterName=$cluster_name
# slurmctld accepts to run only where SlurmctldHost names this host; the address pins it to loopback.
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port_base
SlurmUser=$slurm_user
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# Our own munged, so no system munge key or socket is needed or touched.
AuthInfo=socket=$munge_socket
StateSaveLocation=$state_dir/slurmctld
# %n is the node name: each slurmd of this host keeps its own spool, log and PID file.
SlurmdSpoolDir=$state_dir/slurmd/%n
SlurmctldPidFile=$run_dir/slurmctld.pid
SlurmdPidFile=$run_dir/slurmd-%n.pid
SlurmctldLogFile=$log_dir/slurmctld.log
SlurmdLogFile=$log_dir/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# Containers and sandboxes rarely give a delegated cgroup tree; track job processes by parent PID instead.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=5
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$((port_base + 1))
# With slurmdbd, this "password" names the munge socket used to talk to slurmdbd; AuthInfo is not used for that.
AccountingStoragePass=$munge_socket
AccountingStorageTRES=$(accounting_tres)
JobCompType=jobcomp/filetxt
JobCompLoc=$log_dir/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Schedule at each submit and completion, not on a backfill timer, so tests do not wait for it.
SchedulerType=sched/builtin
# Use the configured CPUs and memory whatever this machine has: the design's nodes are bigger than the host.
SlurmdParameters=config_overrides
MpiDefault=none
# No mail on this machine; the default /bin/mail is absent and slurmctld complains at each start.
MailProg=/bin/true
# Short timeouts keep tests fast; a node that lost contact comes back as soon as its slurmd registers again.
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=5
OverTimeLimit=0
MinJobAge=300

# ---- generated by gputwin export slurm (copied from $generated_dir_abs/slurm.conf, addresses added) ----
EOF
  write_node_lines_with_ports >>"$slurm_conf"
  chmod 644 "$slurm_conf"
}

write_slurmdbd_conf() {
  local password=$1
  cat >"$etc_dir/slurmdbd.conf" <<EOF
# Written by scripts/slurm-local.sh: accounting for the local test cluster, stored in its private MariaDB.
AuthType=auth/munge
AuthInfo=socket=$munge_socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$((port_base + 1))
SlurmUser=$slurm_user
LogFile=$log_dir/slurmdbd.log
PidFile=$run_dir/slurmdbd.pid
StorageType=accounting_storage/mysql
# TCP to 127.0.0.1, not "localhost": the MySQL client would read "localhost" as the system's default socket.
StorageHost=127.0.0.1
StoragePort=$((port_base + 2))
StorageUser=slurm
StoragePass=$password
StorageLoc=slurm_acct_db
EOF
  # slurmdbd refuses a config others can read, since it holds the database password.
  chown "$slurm_user:$slurm_user" "$etc_dir/slurmdbd.conf"
  chmod 600 "$etc_dir/slurmdbd.conf"
}

# ---- daemons ------------------------------------------------------------------------------------------------------

start_munged() {
  [[ -f $munge_dir/munge.key ]] || mungekey --create --keyfile="$munge_dir/munge.key"
  chown -R munge:munge "$munge_dir"
  # munged wants its socket's directory open to all (clients of any user connect) and its key readable by it alone.
  chmod 755 "$munge_dir"
  chmod 400 "$munge_dir/munge.key"
  # munged will not run as root; setpriv execs it as munge in place, keeping the PID we record.
  start_daemon munged setpriv --reuid=munge --regid=munge --init-groups \
    munged --foreground --socket="$munge_socket" --key-file="$munge_dir/munge.key" \
    --pid-file="$munge_dir/munged.pid" --log-file="$log_dir/munged.log" --seed-file="$munge_dir/munged.seed"
  wait_until "munged to answer on $munge_socket" "$log_dir/munged.out" \
    bash -c "munge -n -S '$munge_socket' | unmunge -S '$munge_socket'"
}

start_mariadbd() {
  local password=$1
  local server_options=(--no-defaults --datadir="$mysql_dir/data" --socket="$mysql_socket"
    --port=$((port_base + 2)) --bind-address=127.0.0.1 --skip-name-resolve
    --pid-file="$mysql_dir/mariadbd.pid" --log-error="$log_dir/mariadbd.log" --user=mysql
    # slurmdbd checks this one at start. It also warns that innodb_buffer_pool_size is below its recommendation
    # (still so at 256M); MariaDB's default 128M is plenty for a test database, so we leave the warning.
    --innodb-lock-wait-timeout=900)
  if [[ ! -d $mysql_dir/data/mysql ]]; then
    mkdir -p "$mysql_dir/data"
    chown -R mysql:mysql "$mysql_dir"
    # root logs in through the socket as the Unix root user: no password to keep.
    mariadb-install-db --no-defaults --user=mysql --datadir="$mysql_dir/data" \
      --auth-root-authentication-method=socket --skip-test-db >"$log_dir/mariadb-install-db.log" 2>&1 ||
      die "mariadb-install-db failed; see $log_dir/mariadb-install-db.log"
  fi
  start_daemon mariadbd mariadbd "${server_options[@]}"
  wait_until "mariadbd to answer on $mysql_socket" "$log_dir/mariadbd.log" \
    mariadb-admin --no-defaults --socket="$mysql_socket" ping
  # The password is new at each start (slurmdbd.conf is rewritten too), so set it whether the user exists or not.
  mariadb --no-defaults --socket="$mysql_socket" <<EOF
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
EOF
}

start_slurmdbd() {
  start_daemon slurmdbd slurmdbd -D
  wait_until "slurmdbd to answer" "$log_dir/slurmdbd.log" sacctmgr -n show cluster
}

# Registers the cluster, an account and root as its user, so jobs are accounted with a real association.
register_accounting() {
  sacctmgr -n -P show cluster format=cluster | grep -qx "$cluster_name" ||
    sacctmgr -i add cluster "$cluster_name" >/dev/null
  sacctmgr -n -P show account format=account | grep -qx gputwin ||
    sacctmgr -i add account gputwin cluster="$cluster_name" description="gputwin tests" organization=gputwin >/dev/null
  # root exists from the start with the default account "root"; make gputwin its default so jobs land there.
  sacctmgr -n -P show assoc user=root account=gputwin format=account | grep -qx gputwin ||
    sacctmgr -i add user root account=gputwin cluster="$cluster_name" >/dev/null
  sacctmgr -i modify user root set defaultaccount=gputwin >/dev/null
}

start_slurmctld() {
  start_daemon slurmctld slurmctld -D
  wait_until "slurmctld to answer" "$log_dir/slurmctld.log" scontrol ping
}

start_slurmds() {
  local node
  for node in $(node_names); do
    mkdir -p "$state_dir/slurmd/$node"
    start_daemon "slurmd-$node" slurmd -D -N "$node"
  done
}

all_nodes_idle() {
  # One line per node state; ready when the only state left is idle.
  [[ $(sinfo -h -N -o '%t' | sort -u) == idle ]]
}

cmd_start() {
  local generated_dir=$1 started=$SECONDS file
  [[ -d $generated_dir ]] || die "no such directory: $generated_dir"
  for file in slurm.conf gres.conf topology.conf; do
    [[ -f $generated_dir/$file ]] || die "$generated_dir/$file is missing (expected what gputwin export slurm writes)"
  done
  generated_dir_abs=$(realpath "$generated_dir")

  install_packages
  if [[ -d $pid_dir ]]; then
    for file in "$pid_dir"/*.pid; do
      [[ -e $file ]] || continue
      recorded_live_pid "$(basename "$file" .pid)" >/dev/null &&
        die "a cluster is already running from $state_dir; stop it first (bash $0 stop $state_dir)"
    done
  fi
  local port
  for port in "$port_base" $((port_base + 1)) $((port_base + 2)); do require_free_port "$port" "slurm-local"; done

  mkdir -p "$etc_dir" "$log_dir" "$run_dir" "$pid_dir" "$munge_dir" "$mysql_dir" "$state_dir/slurmctld" "$state_dir/slurmd"
  # Slurm's daemons drop to SlurmUser before they write state, logs and PID files.
  chmod 755 "$state_dir"
  chown "$slurm_user:$slurm_user" "$log_dir" "$run_dir" "$state_dir/slurmctld"
  runuser -u "$slurm_user" -- test -w "$state_dir/slurmctld" ||
    die "user $slurm_user cannot reach $state_dir (a parent directory is closed to others); pick a STATE_DIR under /tmp"

  cp "$generated_dir/slurm.conf" "$etc_dir/generated-slurm.conf"
  # Slurm reads gres.conf and topology.conf from the directory of slurm.conf.
  cp "$generated_dir/gres.conf" "$generated_dir/topology.conf" "$etc_dir/"
  write_slurm_conf
  local node_count
  node_count=$(node_names | wc -l)
  for ((port = port_base + 10; port < port_base + 10 + node_count; port++)); do require_free_port "$port" slurmd; done
  make_fake_gpu_devices "$generated_dir"

  local password
  password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  write_slurmdbd_conf "$password"
  export SLURM_CONF=$slurm_conf

  # A start that fails half-way leaves nothing running: stop what it had started, then report the failure.
  trap 'status=$?; ((status == 0)) || { echo "slurm-local: start failed; stopping what it started" >&2; cmd_stop >&2; }' EXIT
  start_munged
  start_mariadbd "$password"
  start_slurmdbd
  register_accounting
  start_slurmctld
  start_slurmds
  # When nodes do not turn idle, their state and slurmctld's reason (e.g. fewer GPUs found than configured) say why.
  timeout_diagnostic="sinfo -N -o %N|%T|%E"
  wait_until "all nodes to be idle" "$log_dir/slurmctld.log" all_nodes_idle
  trap - EXIT
  echo "slurm-local: cluster $cluster_name up with $node_count nodes in $((SECONDS - started))s;" \
    "eval \"\$(bash $0 env $state_dir)\" to use it"
}

# ---- stop ---------------------------------------------------------------------------------------------------------

# Jobs run under slurmstepd, which outlives slurmd by design: cancel this cluster's jobs while slurmctld can still
# do it, so no job process is left behind. Only this cluster's jobs: SLURM_CONF points at its slurmctld.
cancel_jobs() {
  recorded_live_pid slurmctld >/dev/null || return 0
  export SLURM_CONF=$slurm_conf
  local jobs deadline=$((SECONDS + stop_timeout_s))
  jobs=$(squeue -h -o %A 2>/dev/null) || return 0
  [[ -n $jobs ]] || return 0
  # shellcheck disable=SC2086 # one job ID a word
  scancel $jobs 2>/dev/null || true
  while [[ -n $(squeue -h -o %A 2>/dev/null) ]] && ((SECONDS < deadline)); do
    sleep 0.5
  done
}

cmd_stop() {
  local name file device
  [[ -d $pid_dir ]] || {
    echo "slurm-local: nothing recorded in $state_dir; nothing to stop"
    return 0
  }
  cancel_jobs
  for name in "${stop_order[@]}"; do
    # slurmd-NODE files for slurmd; exact names for the others.
    for file in "$pid_dir/$name".pid "$pid_dir/$name"-*.pid; do
      [[ -e $file ]] && stop_recorded "$(basename "$file" .pid)"
    done
  done
  if [[ -f $devices_file ]]; then
    while read -r device; do
      [[ -c $device ]] && rm -f "$device"
    done <"$devices_file"
    rm -f "$devices_file"
  fi
  echo "slurm-local: stopped the cluster of $state_dir"
}

cmd_env() {
  [[ -f $slurm_conf ]] || die "$slurm_conf does not exist; run start first"
  echo "export SLURM_CONF=$slurm_conf"
}

main() {
  (($# >= 1)) || usage
  local command=$1
  shift
  case $command in
    start)
      (($# == 2)) || usage
      require_root_on_debian
      set_paths "$2"
      cmd_start "$1"
      ;;
    stop)
      (($# == 1)) || usage
      require_root_on_debian
      set_paths "$1"
      cmd_stop
      ;;
    env)
      (($# == 1)) || usage
      set_paths "$1"
      cmd_env
      ;;
    *) usage ;;
  esac
}

main "$@"
