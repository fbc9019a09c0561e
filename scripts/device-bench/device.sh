#!/usr/bin/env bash
# On the bare device machine, as root, from the directory the bundle travelled in:
#   bash .perfcarry/device.sh SET:LAYOUT[:POOL] ...   e.g. new:shared:32 old:shared:32
# Unpacks bundle.tar.xz (package.sh) to /, creates the postgres user, and runs scripts/bench (ACCOUNTS,
# SECONDS_PER_PHASE from the environment: 100000 and 15 by default; NOTIFICATIONS, 60000) once per run, each on a fresh cluster, with the
# binaries of SET (/opt/sl/SET), BENCH_LAYOUT=LAYOUT and server pool POOL (32). To compare two builds, pack both as
# sets (package.sh SETS="old=DIR new=DIR") and name both. Logs go to $OUT/SET-LAYOUT.log.
#   bash .perfcarry/device.sh peers:LAYOUT[:SET] ...   e.g. peers:separate peers:shared
# runs ../shared/peers/bench-peers (packed with WITH_PEERS=1) with SET's binaries (new): SubLedger beside the
# reference servers. LAYOUT separate puts PostgreSQL on the first half of the cores, every server on the next
# quarter and wrk/pgbench on the last (16 cores: 0-7, 8-11, 12-15), as scripts/bench's BENCH_LAYOUT=separate;
# shared pins nothing; 2cores runs everything (PostgreSQL, the servers, wrk, pgbench) on cores 0-1, as on the 2-core
# development machine but with nothing else running, with NIO's event loops and blocking pools sized to 2 in every
# Swift server (NIO_SINGLETON_*: NIO counts the cores online, not the affinity mask). PEERS_ROUNDS (3), PEERS_DURATION (10), PEERS_THREADS (4), PEERS_CONNECTIONS (64) and
# ACCOUNTS are its ROUNDS, DURATION, THREADS, CONNECTIONS, ACCOUNTS. Its report and rounds come back as
# $OUT/peers-LAYOUT.report.txt and $OUT/peers-LAYOUT.rounds.tsv.
set -uo pipefail
T0=$(date +%s)
OUT="${OUT:-/tmp/perfout}"; mkdir -p "$OUT"
HERE="$(cd "$(dirname "$0")" && pwd)"
BUDGET="${BUDGET:-580}"
ACCOUNTS="${ACCOUNTS:-100000}" SECONDS_PER_PHASE="${SECONDS_PER_PHASE:-15}"
elapsed() { echo $(( $(date +%s) - T0 )); }
exec > >(tee -a "$OUT/device.log") 2>&1

echo "== machine"
nproc; uname -r; head -2 /etc/os-release; free -g | head -2
lscpu | grep -E 'Model name|Thread|Core|Socket|NUMA node' | head -6
echo "== unpack ($(elapsed) s)"
if command -v xz >/dev/null; then xz -dc "$HERE/bundle.tar.xz"
else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$HERE/bundle.tar.xz"
fi | tar -x --no-overwrite-dir -C / || { echo "unpack failed"; exit 1; }
# Binaries packed apart from the bundle (package.sh BINARIES_ONLY=1): SET.tar.xz beside it replaces /opt/sl/SET.
for f in "$HERE"/*.bin.tar.xz; do [[ -e "$f" ]] && xz -dc "$f" | tar -x -C /opt/sl && echo "unpacked $(basename "$f")"; done
[[ -e /usr/share/zoneinfo/UTC ]] || { mkdir -p /usr/share/zoneinfo && cp -a /opt/sl/zoneinfo/. /usr/share/zoneinfo/; }
# A packaged library only where the machine has none of that soname.
mkdir -p /opt/sl/libuse
ldconfig -p | awk 'NR > 1 { print $1 }' | sort -u >/tmp/syslibs
for f in /opt/sl/lib/*; do n="$(basename "$f")"; grep -qxF "$n" /tmp/syslibs || ln -sf "$f" "/opt/sl/libuse/$n"; done
export LD_LIBRARY_PATH=/opt/sl/libuse TZ=UTC
export PATH="/opt/sl/bin:/usr/lib/postgresql/15/bin:$PATH"
command -v curl >/dev/null || export PATH="$PATH:/opt/sl/extra"
id postgres >/dev/null 2>&1 || useradd -m -s /bin/bash postgres
postgres -V && wrk -v 2>&1 | head -1
echo "== unpacked ($(elapsed) s)"

# bench-peers with the servers (and everything else it starts) on one core set, PostgreSQL on another and the
# load generators on a third: the script pins nothing itself, so pinned wrappers of pg_ctl (the postmaster and
# every backend inherit its affinity), wrk and pgbench go first on PATH, and the script runs under taskset.
run_peers() {
    local layout="$1" set="${2:-new}" cores pin=() path="$PATH"
    local dir="/tmp/peers-$layout" log="$OUT/peers-$layout.log"
    [[ -x /opt/sl/peers/bench-peers ]] || { echo "== no bench-peers in the bundle (WITH_PEERS=1)"; return; }
    local nio=()
    case "$layout" in
        shared) ;;
        2cores)
            pin=(taskset -c 0-1)
            nio=(NIO_SINGLETON_GROUP_LOOP_COUNT=2 NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT=2)
            echo "   everything on cores 0-1" ;;
        separate)
            cores="$(nproc)"
            (( cores >= 4 )) || { echo "== peers:separate needs 4 cores"; return; }
            local pg="0-$((cores / 2 - 1))" server="$((cores / 2))-$((cores * 3 / 4 - 1))" client="$((cores * 3 / 4))-$((cores - 1))"
            mkdir -p /opt/sl/pinned
            printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v initdb)" >/opt/sl/pinned/initdb
            printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$pg" "$(command -v pg_ctl)" >/opt/sl/pinned/pg_ctl
            printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$client" "$(command -v wrk)" >/opt/sl/pinned/wrk
            printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$client" "$(command -v pgbench)" >/opt/sl/pinned/pgbench
            chmod 755 /opt/sl/pinned/*
            path="/opt/sl/pinned:$PATH" pin=(taskset -c "$server")
            echo "   PostgreSQL on $pg, servers on $server, wrk and pgbench on $client" ;;
        *) echo "== unknown layout $layout"; return ;;
    esac
    local left=$(( BUDGET - $(elapsed) ))
    echo "== run peers:$layout at $(elapsed) s ($left s left)"
    ( cd /opt/sl/project && timeout -s TERM $(( left - 5 )) env "${nio[@]}" PATH="$path" OUT_DIR="$dir" ACCOUNTS="$ACCOUNTS" \
        ROUNDS="${PEERS_ROUNDS:-3}" DURATION="${PEERS_DURATION:-10}" THREADS="${PEERS_THREADS:-4}" \
        CONNECTIONS="${PEERS_CONNECTIONS:-64}" PEER_SWIFT=/opt/sl/peers/peer-hummingbird PEER_RUST=/opt/sl/peers/peer-hyper \
        "${pin[@]}" bash /opt/sl/peers/bench-peers "/opt/sl/$set" ) >"$log" 2>&1
    cp "$dir/report.txt" "$OUT/peers-$layout.report.txt" 2>/dev/null
    cp "$dir/rounds.tsv" "$OUT/peers-$layout.rounds.tsv" 2>/dev/null
    sed -n '/^Entitlement reads,/,$p' "$dir/report.txt" 2>/dev/null | head -50
    tail -3 "$log"
}

for run in "$@"; do
    if [[ "$run" == peers:* ]]; then
        IFS=: read -r _ layout set <<<"$run"
        run_peers "$layout" "$set"
        continue
    fi
    IFS=: read -r set layout pool <<<"$run"
    pool="${pool:-32}"
    log="$OUT/$set-$layout.log"
    left=$(( BUDGET - $(elapsed) ))
    if (( left < ${NEED:-150} )); then echo "== skip $run: $left s left"; continue; fi
    [[ -x "/opt/sl/$set/subledger" ]] || { echo "== no binary set $set"; continue; }
    echo "== run $run at $(elapsed) s ($left s left)"
    start=$(date +%s)
    ( cd /tmp && timeout -s TERM $(( left - 5 )) env BENCH_LAYOUT="$layout" BENCH_POOL_SIZE="$pool" \
        BENCH_NOTIFICATIONS="${NOTIFICATIONS:-60000}" BENCH_NOTIFICATIONS_DIR=/tmp/notes SUBLEDGER_BIN_DIR="/opt/sl/$set" \
        ${EXTRA_ENV:-} bash /opt/sl/project/scripts/bench "$ACCOUNTS" "$SECONDS_PER_PHASE" ) 2>&1 \
        | while IFS= read -r line; do printf '%s %s\n' "$(date +%T)" "$line"; done >"$log"
    NEED=$(( $(date +%s) - start + 5 ))
    echo "== $run took $(( $(date +%s) - start )) s"
    sed -n '/SubLedger benchmark:/,$p' "$log" | cut -c10- | head -40
    tail -3 "$log"
done
echo "== done at $(elapsed) s"
