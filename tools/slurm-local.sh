#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for running `s17` job arrays
# (tools/exhaust-array.sbatch). The machine is both controller and compute
# node; daemons are started directly (no systemd needed), as root.
#
#   sudo tools/slurm-local.sh          # install if missing, configure, start, wait for idle
#   sudo tools/slurm-local.sh --stop   # stop slurmd, slurmctld and munged
#   sudo tools/slurm-local.sh --force  # also replace a slurm.conf not written by this script
#
# Made for Debian 12 (slurm-wlm 22.05 from Debian, munge 0.5). Idempotent:
# re-running it while everything is up changes nothing. Files it touches:
#   /etc/slurm/slurm.conf        (marked as written by this script)
#   /etc/munge/munge.key         (created only if missing)
#   /var/spool/slurmctld, /var/spool/slurmd, /var/log/slurm, /run/munge
set -euo pipefail

CONF=/etc/slurm/slurm.conf
MARK="# Written by tools/slurm-local.sh"
STATE=/var/spool/slurmctld
SPOOL=/var/spool/slurmd
LOGDIR=/var/log/slurm
CTLD_PID=/run/slurmctld.pid
SLURMD_PID=/run/slurmd.pid
MUNGE_PID=/run/munge/munged.pid
MUNGE_KEY=/etc/munge/munge.key
PARTITION=main

die() { echo "slurm-local: error: $*" >&2; exit 1; }
say() { echo "slurm-local: $*"; }

mode=start
force=0
for arg in "$@"; do
    case $arg in
        --stop) mode=stop ;;
        --force) force=1 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) die "unknown argument '$arg' (use --stop, --force or --help)" ;;
    esac
done

[[ $(id -u) -eq 0 ]] || die "must run as root (daemons and /etc/slurm need it)"

# True if the pid in pidfile $1 is alive and is the program $2.
running() {
    local pid
    [[ -s $1 ]] || return 1
    pid=$(<"$1")
    [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]]
}

# Sends SIGTERM to the daemon of pidfile $1 (program $2) and waits up to 20 s.
stop_daemon() {
    local pidfile=$1 name=$2 pid i
    if ! running "$pidfile" "$name"; then
        say "$name is not running"
        return 0
    fi
    pid=$(<"$pidfile")
    kill -TERM "$pid"
    for ((i = 0; i < 40; i++)); do
        kill -0 "$pid" 2>/dev/null || { say "stopped $name (pid $pid)"; return 0; }
        sleep 0.5
    done
    die "$name (pid $pid) did not stop within 20 s; kill it with: kill -KILL $pid"
}

# --stop: slurmd first (so it does not see the controller vanish), then
# slurmctld (it saves its state, so pending jobs survive a restart), then munged.
if [[ $mode == stop ]]; then
    stop_daemon "$SLURMD_PID" slurmd
    stop_daemon "$CTLD_PID" slurmctld
    stop_daemon "$MUNGE_PID" munged
    exit 0
fi

# 1. Install slurm-wlm and munge if missing. While installing, keep the
#    packages' init scripts from starting daemons with a default config
#    (a temporary policy-rc.d, unless one already exists).
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sinfo >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge with apt-get"
    command -v apt-get >/dev/null || die "apt-get not found: this script is for Debian/Ubuntu"
    policy=/usr/sbin/policy-rc.d
    made_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' > "$policy"
        chmod 755 "$policy"
        made_policy=1
        trap 'rm -f "$policy"' EXIT
    fi
    export DEBIAN_FRONTEND=noninteractive
    pkgs=(slurm-wlm munge)
    if ! apt-get install -y -q --no-install-recommends "${pkgs[@]}"; then
        say "install failed; refreshing package lists and retrying"
        apt-get update -q || die "apt-get update failed (network? sources.list?)"
        apt-get install -y -q --no-install-recommends "${pkgs[@]}" ||
            die "apt-get install ${pkgs[*]} failed"
    fi
    if ((made_policy)); then rm -f "$policy"; trap - EXIT; fi
fi
SLURMCTLD=$(command -v slurmctld) || die "slurmctld not found after install"
SLURMD=$(command -v slurmd) || die "slurmd not found after install"
MUNGED=$(command -v munged) || die "munged not found after install"

# 2. Size the node from this machine: CPUs as nproc reports, memory in MiB
#    minus headroom for the OS (10 %, at least 1 GiB). slurmd drains a node
#    whose configured memory or CPUs exceed what it finds.
host=$(hostname -s)
[[ -n $host ]] || die "hostname -s is empty"
cpus=$(nproc)
mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
mem_mib=$((mem_kib / 1024))
headroom=$((mem_mib / 10 > 1024 ? mem_mib / 10 : 1024))
real_mem=$((mem_mib - headroom))
((real_mem > 0)) || die "too little memory (${mem_mib} MiB) for a node"
# The node's address: the host name if it resolves, else loopback.
if getent hosts "$host" >/dev/null; then addr=$host; else addr=127.0.0.1; fi

# 3. Write slurm.conf (only if it would change; never over a file this
#    script did not write, unless --force, and then keep a backup).
new_conf=$(cat <<EOF
$MARK for a one-node cluster on $host.
# Re-run the script to regenerate; edit by hand only after removing this mark.
ClusterName=s17local
SlurmctldHost=$host($addr)
# Daemons run as root: no slurm user, no cgroups, no systemd.
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE
SlurmdSpoolDir=$SPOOL
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$SLURMD_PID
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
# No mail from this node (Debian's default MailProg is not installed).
MailProg=/bin/true
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
# Requeued batch jobs are allowed; a node that was down returns to service
# as soon as it registers with a valid configuration.
JobRequeue=1
ReturnToService=2
NodeName=$host NodeAddr=$addr CPUs=$cpus RealMemory=$real_mem State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
)
conf_changed=0
if [[ -e $CONF ]] && [[ $(<"$CONF") == "$new_conf" ]]; then
    say "$CONF is up to date"
else
    if [[ -e $CONF ]]; then
        if ! grep -qF "$MARK" "$CONF" && ((force == 0)); then
            die "$CONF exists and was not written by this script; move it away or re-run with --force"
        fi
        backup=$CONF.bak-$(date +%Y%m%d-%H%M%S)
        cp -p "$CONF" "$backup"
        say "replacing $CONF (old one kept as $backup)"
    else
        say "writing $CONF"
    fi
    mkdir -p "$(dirname "$CONF")"
    printf '%s\n' "$new_conf" > "$CONF.tmp"
    mv "$CONF.tmp" "$CONF"
    conf_changed=1
fi
mkdir -p "$STATE" "$SPOOL" "$LOGDIR"

# 4. The munge key (shared secret of all nodes; here just one). Debian's
#    munge package usually makes one; make it if missing.
if [[ ! -s $MUNGE_KEY ]]; then
    say "creating $MUNGE_KEY"
    mkdir -p "$(dirname "$MUNGE_KEY")"
    if command -v mungekey >/dev/null; then
        mungekey --create --keyfile="$MUNGE_KEY" --force
    else
        dd if=/dev/urandom of="$MUNGE_KEY" bs=1 count=1024 status=none
    fi
fi
# munged insists on the key being private to its user.
munge_user=root
id munge >/dev/null 2>&1 && munge_user=munge
chown "$munge_user:" "$MUNGE_KEY"
chmod 400 "$MUNGE_KEY"

# 5. Start munged (as the munge user if it exists; as root it needs --force).
if running "$MUNGE_PID" munged; then
    say "munged is running"
else
    mkdir -p /run/munge /var/lib/munge /var/log/munge
    chown "$munge_user:" /run/munge /var/lib/munge /var/log/munge
    chmod 755 /run/munge
    rm -f "$MUNGE_PID" /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
    if [[ $munge_user == munge ]]; then
        runuser -u munge -- "$MUNGED" || die "munged failed to start; see /var/log/munge/munged.log"
    else
        "$MUNGED" --force || die "munged failed to start; see /var/log/munge/munged.log"
    fi
    say "started munged"
fi
# Check that munge works end to end (the daemons authenticate with it).
munge -n | unmunge >/dev/null 2>&1 ||
    die "munge does not work (munge -n | unmunge failed); see /var/log/munge/munged.log"

# 6. Start slurmctld and slurmd (they daemonize themselves). If the config
#    changed while they were running, restart them to pick it up.
if ((conf_changed)) && { running "$CTLD_PID" slurmctld || running "$SLURMD_PID" slurmd; }; then
    say "slurm.conf changed: restarting the Slurm daemons"
    stop_daemon "$SLURMD_PID" slurmd
    stop_daemon "$CTLD_PID" slurmctld
fi
if running "$CTLD_PID" slurmctld; then
    say "slurmctld is running"
else
    "$SLURMCTLD" || die "slurmctld failed to start; see $LOGDIR/slurmctld.log"
    say "started slurmctld"
fi
# slurmd registers with the controller, so wait for the controller first.
for ((i = 0; ; i++)); do
    scontrol ping 2>/dev/null | grep -q 'is UP' && break
    ((i < 60)) || die "slurmctld does not answer (scontrol ping); see $LOGDIR/slurmctld.log"
    sleep 0.5
done
if running "$SLURMD_PID" slurmd; then
    say "slurmd is running"
else
    "$SLURMD" || die "slurmd failed to start; see $LOGDIR/slurmd.log"
    say "started slurmd"
fi

# 7. Wait until the node is usable: idle (or busy with jobs, on a re-run).
say "waiting for node $host to be idle"
for ((i = 0; ; i++)); do
    state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n1)
    case $state in
        idle|mixed|allocated|completing) break ;;
        *drain*|*down*|*inval*|*fail*)
            if ((i >= 10)); then
                sinfo -R >&2 || true
                tail -n 20 "$LOGDIR/slurmd.log" >&2 || true
                die "node $host is '$state' (reasons above); fix it, then: scontrol update nodename=$host state=resume"
            fi ;;
    esac
    ((i < 60)) || die "node $host is still '${state:-unknown}' after 30 s; see $LOGDIR/slurmd.log and $LOGDIR/slurmctld.log"
    sleep 0.5
done
sinfo
