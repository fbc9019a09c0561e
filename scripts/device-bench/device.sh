#!/usr/bin/env bash
# On the bare device machine, as root, from the directory the bundle travelled in:
#   bash .perfcarry/device.sh SET:LAYOUT[:POOL[:handoff]] ...   e.g. new:shared:32:handoff new:shared:32
# Unpacks bundle.tar.xz (package.sh) to /, creates the postgres user, and runs scripts/bench (ACCOUNTS,
# SECONDS_PER_PHASE from the environment: 100000 and 15 by default; NOTIFICATIONS, 60000) once per run, each on a fresh cluster, with the
# binaries of SET (/opt/sl/SET), BENCH_LAYOUT=LAYOUT and server pool POOL (32); `handoff` runs the server with
# SUBLEDGER_POSTGRES_THREAD_PER_QUERY=1 (every statement on its connection's thread, as before the readiness
# thread). Logs go to $OUT/SET-LAYOUT[-handoff].log.
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

for run in "$@"; do
    IFS=: read -r set layout pool mode <<<"$run"
    pool="${pool:-32}"
    log="$OUT/$set-$layout${mode:+-$mode}.log"
    handoff=0; [[ "$mode" == handoff ]] && handoff=1
    left=$(( BUDGET - $(elapsed) ))
    if (( left < ${NEED:-150} )); then echo "== skip $run: $left s left"; continue; fi
    [[ -x "/opt/sl/$set/subledger" ]] || { echo "== no binary set $set"; continue; }
    echo "== run $run at $(elapsed) s ($left s left)"
    start=$(date +%s)
    ( cd /tmp && timeout -s TERM $(( left - 5 )) env SUBLEDGER_POSTGRES_THREAD_PER_QUERY="$handoff" BENCH_LAYOUT="$layout" BENCH_POOL_SIZE="$pool" \
        BENCH_NOTIFICATIONS="${NOTIFICATIONS:-60000}" BENCH_NOTIFICATIONS_DIR=/tmp/notes SUBLEDGER_BIN_DIR="/opt/sl/$set" \
        ${EXTRA_ENV:-} bash /opt/sl/project/scripts/bench "$ACCOUNTS" "$SECONDS_PER_PHASE" ) 2>&1 \
        | while IFS= read -r line; do printf '%s %s\n' "$(date +%T)" "$line"; done >"$log"
    NEED=$(( $(date +%s) - start + 5 ))
    echo "== $run took $(( $(date +%s) - start )) s"
    sed -n '/SubLedger benchmark:/,$p' "$log" | cut -c10- | head -40
    tail -3 "$log"
done
echo "== done at $(elapsed) s"
